//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a head was refused, with the status to answer.
public struct HTTPParseError: Error, Equatable, Sendable {
    /// 400, 414, 431 or 505.
    public var status: Int
    /// A short reason for logs.
    public var reason: String
    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }
}
