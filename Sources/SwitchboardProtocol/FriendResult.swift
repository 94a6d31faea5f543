//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `friends.accept`: `{friend}`.
public struct FriendResult: Codable, Sendable, Equatable {
    /// The new friend.
    public var friend: UserSummary
    public init(friend: UserSummary) { self.friend = friend }
}
