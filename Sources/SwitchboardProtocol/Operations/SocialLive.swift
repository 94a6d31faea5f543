//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Social notifications and live pages (docs/protocol.md, "Social notifications" and "Live pages"; the design in
// docs/social.md, "Live pages: ordering, routing and resume").

extension Ops {
    /// The social notification and live page ops.
    public static let socialLive: [any ProtocolOperation.Type] = [
        NotificationsList.self, NotificationsUnread.self, NotificationsRead.self, LiveSubscribe.self,
        LiveUnsubscribe.self,
    ]

    /// `notifications.list {before?, limit?}` -> `{groups, unread, next_before}`: my social notifications, grouped.
    public enum NotificationsList: ProtocolOperation {
        public static let name = "notifications.list"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// A notification id: groups made of notifications older than it.
            public var before: Int64?
            /// 1-50 groups, default 20.
            public var limit: Int?
            public init(before: Int64? = nil, limit: Int? = nil) {
                self.before = before
                self.limit = limit
            }
        }
        public typealias Result = SocialNotificationsPage
    }

    /// `notifications.unread {}` -> `{unread}`.
    public enum NotificationsUnread: ProtocolOperation {
        public static let name = "notifications.unread"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = SocialUnread
    }

    /// `notifications.read {up_to?}` -> `{unread}`: moves my read marker forward (default: to the newest);
    /// `notifications.read {read_id, unread}` goes to my devices.
    public enum NotificationsRead: ProtocolOperation {
        public static let name = "notifications.read"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var upTo: Int64?
            public init(upTo: Int64? = nil) { self.upTo = upTo }
        }
        public typealias Result = SocialUnread
    }

    /// `live.subscribe {streams, since?}` -> `{subscribed, seq, posts, deleted, resync_required}`.
    public enum LiveSubscribe: ProtocolOperation {
        public static let name = "live.subscribe"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// `home`, `user:<id>`, `thread:<post id>`, `notifications`.
            public var streams: [String]
            /// The newest post seq the client has seen: the posts and deletions after it on the new streams come back.
            public var since: Int64?
            public init(streams: [String], since: Int64? = nil) {
                self.streams = streams
                self.since = since
            }
        }
        public typealias Result = LiveSubscribeResult
    }

    /// `live.unsubscribe {streams}` -> `{subscribed}`.
    public enum LiveUnsubscribe: ProtocolOperation {
        public static let name = "live.unsubscribe"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var streams: [String]
            public init(streams: [String]) { self.streams = streams }
        }
        public typealias Result = LiveUnsubscribeResult
    }
}

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

/// The reply to `notifications.list`: `next_before` (a notification id) for the next page, null at the end.
public struct SocialNotificationsPage: Codable, Sendable, Equatable {
    public var groups: [SocialNotificationGroup]
    public var unread: Int64
    public var nextBefore: Int64?
    public init(groups: [SocialNotificationGroup], unread: Int64, nextBefore: Int64?) {
        self.groups = groups
        self.unread = unread
        self.nextBefore = nextBefore
    }
    enum CodingKeys: String, CodingKey { case groups, unread, nextBefore }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(groups, forKey: .groups)
        try c.encode(unread, forKey: .unread)
        try c.encode(nextBefore, forKey: .nextBefore)
    }
}

/// `{unread}`.
public struct SocialUnread: Codable, Sendable, Equatable {
    public var unread: Int64
    public init(unread: Int64) { self.unread = unread }
}

/// The `notifications.read` event to my devices: my marker and what is left unread.
public struct SocialNotificationsReadEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "notifications.read"
    public var readId: Int64
    public var unread: Int64
    public init(readId: Int64, unread: Int64) {
        self.readId = readId
        self.unread = unread
    }
}

/// A deleted post in a live resume.
public struct LiveDeletedPost: Codable, Sendable, Equatable {
    public var postId: Int64
    public var seq: Int64
    public init(postId: Int64, seq: Int64) {
        self.postId = postId
        self.seq = seq
    }
}

/// The reply to `live.subscribe`.
public struct LiveSubscribeResult: Codable, Sendable, Equatable {
    /// Every stream of this connection.
    public var subscribed: [String]
    /// The post clock now: pass it as `since` when resubscribing.
    public var seq: Int64
    /// Posts missed on the new streams (seq > since), oldest first.
    public var posts: [SocialPost]
    /// Deletions missed on the new streams (deletion seq > since).
    public var deleted: [LiveDeletedPost]
    /// More than `--live-replay-max` missed: `posts` and `deleted` are empty, reload the pages.
    public var resyncRequired: Bool
    public init(subscribed: [String], seq: Int64, posts: [SocialPost], deleted: [LiveDeletedPost], resyncRequired: Bool)
    {
        self.subscribed = subscribed
        self.seq = seq
        self.posts = posts
        self.deleted = deleted
        self.resyncRequired = resyncRequired
    }
}

/// The reply to `live.unsubscribe`.
public struct LiveUnsubscribeResult: Codable, Sendable, Equatable {
    public var subscribed: [String]
    public init(subscribed: [String]) { self.subscribed = subscribed }
}

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
