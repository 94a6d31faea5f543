//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Result of `friends.requests`: `{incoming: [...], outgoing: [...]}`, oldest first.
public struct FriendsRequestsResult: Codable, Sendable, Equatable {
    /// Requests to the user.
    public var incoming: [PendingFriendRequest]
    /// Requests from the user.
    public var outgoing: [PendingFriendRequest]

    public init(incoming: [PendingFriendRequest], outgoing: [PendingFriendRequest]) {
        self.incoming = incoming
        self.outgoing = outgoing
    }
}
