//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One group of `notifications.list`: likes and reposts of one post, the follows of a page, or one reply/mention.
public struct SocialNotificationGroup: Codable, Sendable, Equatable {
    /// `follow`, `follow_request`, `like`, `repost`, `reply`, `mention`.
    public var kind: String
    /// The post liked/reposted, or the reply/mentioning post; null for follows (or a post no longer visible).
    public var post: SocialPost?
    /// Newest first, at most 3.
    public var actors: [SocialUser]
    public var actorCount: Int64
    public var latestAt: String
    public var newestId: Int64
    public var unread: Bool
    public init(
        kind: String, post: SocialPost?, actors: [SocialUser], actorCount: Int64, latestAt: String, newestId: Int64,
        unread: Bool
    ) {
        self.kind = kind
        self.post = post
        self.actors = actors
        self.actorCount = actorCount
        self.latestAt = latestAt
        self.newestId = newestId
        self.unread = unread
    }
    enum CodingKeys: String, CodingKey { case kind, post, actors, actorCount, latestAt, newestId, unread }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        try c.encode(post, forKey: .post)
        try c.encode(actors, forKey: .actors)
        try c.encode(actorCount, forKey: .actorCount)
        try c.encode(latestAt, forKey: .latestAt)
        try c.encode(newestId, forKey: .newestId)
        try c.encode(unread, forKey: .unread)
    }
}
