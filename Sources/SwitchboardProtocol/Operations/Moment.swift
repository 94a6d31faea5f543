//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A moment as a viewer sees it: `{moment_id, owner, caption, photos, like_count, liked, recent_likers, created_at}`.
public struct Moment: Codable, Sendable, Equatable {
    public var momentId: Int64
    public var owner: SocialUser
    /// "" when none.
    public var caption: String
    /// 1-9, in the order given.
    public var photos: [Photo]
    public var likeCount: Int64
    /// Whether the viewer likes it.
    public var liked: Bool
    /// At most 3, newest like first.
    public var recentLikers: [SocialUser]
    /// RFC 3339, UTC.
    public var createdAt: String
    public init(
        momentId: Int64, owner: SocialUser, caption: String, photos: [Photo], likeCount: Int64, liked: Bool,
        recentLikers: [SocialUser],
        createdAt: String
    ) {
        self.momentId = momentId
        self.owner = owner
        self.caption = caption
        self.photos = photos
        self.likeCount = likeCount
        self.liked = liked
        self.recentLikers = recentLikers
        self.createdAt = createdAt
    }
}
