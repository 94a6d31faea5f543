//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An empty result or event body: `{}`.
public struct Empty: Codable, Sendable, Equatable {
    public init() {}
}
