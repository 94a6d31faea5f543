//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply of `admin.suspend` and `admin.reinstate`.
public struct ModerationUserResult: Codable, Sendable, Equatable {
    public var userId: Int64
    public var suspended: Bool
    public init(userId: Int64, suspended: Bool) {
        self.userId = userId
        self.suspended = suspended
    }
}
