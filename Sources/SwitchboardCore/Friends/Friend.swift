//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A friend in the list (`FriendRepository.friends`).
public struct Friend: Codable, Sendable, Equatable {
    /// The friend.
    public var userId: Int64
    /// The friend's display name.
    public var displayName: String
    /// The friend's profile picture, when the list was read with it (`friends.list`).
    public var avatarPhotoId: Int64? = nil
}
