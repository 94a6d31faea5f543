//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `friends.list`: `{friends: [...]}` by display name (case-insensitive), then user id.
public struct FriendsListResult: Codable, Sendable, Equatable {
    /// The friends, sorted.
    public var friends: [UserSummary]
    public init(friends: [UserSummary]) { self.friends = friends }
}
