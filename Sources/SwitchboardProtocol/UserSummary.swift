//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A user as other users see them: `{user_id, display_name}` (friends, requesters).
public struct UserSummary: Codable, Sendable, Equatable {
    /// The user's id.
    public var userId: Int64
    /// The user's display name.
    public var displayName: String
    /// The id of the user's profile picture (`GET /photos/{id}`); absent when none (the friends list).
    public var avatarPhotoId: Int64?

    public init(userId: Int64, displayName: String, avatarPhotoId: Int64? = nil) {
        self.userId = userId
        self.displayName = displayName
        self.avatarPhotoId = avatarPhotoId
    }
}
