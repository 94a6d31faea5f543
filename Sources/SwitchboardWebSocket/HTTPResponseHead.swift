//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A parsed response head (the client role: the upgrade response).
public struct HTTPResponseHead: Sendable {
    public var version: HTTPVersion
    public var status: Int
    public var reason: String
    public var headers: HTTPHeaders
}
