//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// `{user_id}`.
public struct UserIDParameters: Codable, Sendable, Equatable {
    public var userId: Int64
    public init(userId: Int64) { self.userId = userId }
}
