//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `friends.request`: `{request}` for a new pending request, or `{friend}` when the users are
/// already friends or the other side had already asked (then accepted at once).
public struct FriendsRequestResult: Codable, Sendable, Equatable {
    /// The new pending request.
    public var request: PendingFriendRequest?
    /// The friend, when the result is a friendship.
    public var friend: UserSummary?

    public init(request: PendingFriendRequest? = nil, friend: UserSummary? = nil) {
        self.request = request
        self.friend = friend
    }
}
