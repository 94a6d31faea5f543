//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Live page events (`docs/protocol.md`, "Live pages").
public enum LiveEvents {
    /// `post.new {post}`.
    public struct PostNew: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "post.new"
        public var post: SocialPost
        public init(post: SocialPost) { self.post = post }
    }

    /// `post.deleted {post_id, seq, author_id, thread_root}`.
    public struct PostDeleted: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "post.deleted"
        public var postId: Int64
        public var seq: Int64
        public var authorId: Int64
        public var threadRoot: Int64?
        public init(postId: Int64, seq: Int64, authorId: Int64, threadRoot: Int64?) {
            self.postId = postId
            self.seq = seq
            self.authorId = authorId
            self.threadRoot = threadRoot
        }
        enum CodingKeys: String, CodingKey { case postId, seq, authorId, threadRoot }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(postId, forKey: .postId)
            try c.encode(seq, forKey: .seq)
            try c.encode(authorId, forKey: .authorId)
            try c.encode(threadRoot, forKey: .threadRoot)
        }
    }

    /// `post.counts {post_id, like_count, repost_count, reply_count}`.
    public struct PostCounts: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "post.counts"
        public var postId: Int64
        public var likeCount: Int64
        public var repostCount: Int64
        public var replyCount: Int64
        public init(postId: Int64, likeCount: Int64, repostCount: Int64, replyCount: Int64) {
            self.postId = postId
            self.likeCount = likeCount
            self.repostCount = repostCount
            self.replyCount = replyCount
        }
    }

    /// `post.photos {post_id, photos}`: a post's photos after one was deleted (`photos.delete`); `photos` in order,
    /// empty when none is left.
    public struct PostPhotos: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "post.photos"
        public var postId: Int64
        public var photos: [Photo]
        public init(postId: Int64, photos: [Photo]) {
            self.postId = postId
            self.photos = photos
        }
    }

    /// `profile.counts {user_id, posts, following, followers}`.
    public struct ProfileCounts: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "profile.counts"
        public var userId: Int64
        public var posts: Int64
        public var following: Int64
        public var followers: Int64
        public init(userId: Int64, posts: Int64, following: Int64, followers: Int64) {
            self.userId = userId
            self.posts = posts
            self.following = following
            self.followers = followers
        }
    }

    /// One notification in a `notification` event.
    public struct Notification: Codable, Sendable, Equatable {
        public var id: Int64
        public var kind: String
        public var actor: SocialUser
        public var postId: Int64?
        public var createdAt: String
        public init(id: Int64, kind: String, actor: SocialUser, postId: Int64?, createdAt: String) {
            self.id = id
            self.kind = kind
            self.actor = actor
            self.postId = postId
            self.createdAt = createdAt
        }
        enum CodingKeys: String, CodingKey { case id, kind, actor, postId, createdAt }
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(kind, forKey: .kind)
            try c.encode(actor, forKey: .actor)
            try c.encode(postId, forKey: .postId)
            try c.encode(createdAt, forKey: .createdAt)
        }
    }

    /// `notification {notification, unread}`.
    public struct NotificationEvent: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "notification"
        public var notification: Notification
        public var unread: Int64
        public init(notification: Notification, unread: Int64) {
            self.notification = notification
            self.unread = unread
        }
    }
}
