//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A pending friend request as the store reads it (`FriendRequestRepository`); on the wire as
/// `PendingFriendRequest`.
public struct FriendRequest: Codable, Sendable, Equatable {
    /// The request.
    public var requestId: Int64
    /// Who asked (id and display name).
    public var from: Profile
    /// Who was asked (id and display name).
    public var to: Profile
    /// When it was asked (wire timestamp).
    public var createdAt: String
}
