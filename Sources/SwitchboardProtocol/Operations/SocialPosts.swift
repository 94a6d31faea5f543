//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Posts, replies, reposts, likes and every timeline (docs/protocol.md, "Posts and timelines"; issue 18).

extension Ops {
    /// The post and timeline ops.
    public static let socialPosts: [any ProtocolOperation.Type] = [
        PostCreate.self, PostGet.self, PostDelete.self, PostLike.self, PostUnlike.self, PostRepost.self,
        PostUnrepost.self,
        PostLikers.self, TimelineHome.self, TimelineUser.self, TimelineThread.self, TimelineMentions.self,
        TimelineLikes.self,
        TimelineHashtag.self,
    ]

    /// `post.create {text?, reply_to?, voice_clip_id?, client_id?}` -> `{post}`.
    public enum PostCreate: ProtocolOperation {
        public static let name = "post.create"
        public static let stateChanging = true
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.posts
        public struct Parameters: Codable, Sendable, Equatable {
            /// At most 280 grapheme clusters (`--max-post-length`); required unless `voice_clip_id`.
            public var text: String?
            /// The post this one replies to.
            public var replyTo: Int64?
            /// A clip the author uploaded with `POST /voice`.
            public var voiceClipId: Int64?
            /// Accepted for the clients' symmetry with `messages.send`; not stored (no idempotency yet).
            public var clientId: String?
            /// 0-4 (`--post-max-photos`) distinct photos of the author's, in order (issue 19); with photos the
            /// text may be empty.
            public var photoIds: [Int64]?
            public init(
                text: String? = nil, replyTo: Int64? = nil, voiceClipId: Int64? = nil, clientId: String? = nil,
                photoIds: [Int64]? = nil
            ) {
                self.photoIds = photoIds
                self.text = text
                self.replyTo = replyTo
                self.voiceClipId = voiceClipId
                self.clientId = clientId
            }
        }
        public typealias Result = PostResult
    }

    /// `post.get {post_id}` -> `{post}`.
    public enum PostGet: ProtocolOperation {
        public static let name = "post.get"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = PostIdParameters
        public typealias Result = PostResult
    }

    /// `post.delete {post_id}` -> `{}`: one's own post or repost (administrators: any); its reposts go with it.
    public enum PostDelete: ProtocolOperation {
        public static let name = "post.delete"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = PostIdParameters
        public typealias Result = Empty
    }

    /// `post.like {post_id}` -> `{post_id, like_count, liked}` (a repost's id means its original).
    public enum PostLike: ProtocolOperation {
        public static let name = "post.like"
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.likes
        public typealias Parameters = PostIdParameters
        public typealias Result = PostLikeResult
    }

    /// `post.unlike {post_id}` -> `{post_id, like_count, liked}`.
    public enum PostUnlike: ProtocolOperation {
        public static let name = "post.unlike"
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.likes
        public typealias Parameters = PostIdParameters
        public typealias Result = PostLikeResult
    }

    /// `post.repost {post_id}` -> `{post}` (the repost; again: the existing one).
    public enum PostRepost: ProtocolOperation {
        public static let name = "post.repost"
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.reposts
        public typealias Parameters = PostIdParameters
        public typealias Result = PostResult
    }

    /// `post.unrepost {post_id}` (the original) -> `{}`.
    public enum PostUnrepost: ProtocolOperation {
        public static let name = "post.unrepost"
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.reposts
        public typealias Parameters = PostIdParameters
        public typealias Result = Empty
    }

    /// `post.likers {post_id, before?, limit?}` -> `{users, next_before}`.
    public enum PostLikers: ProtocolOperation {
        public static let name = "post.likers"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var postId: Int64
            /// A like id (`next_before` of the previous page).
            public var before: Int64?
            /// 1-100, default 20.
            public var limit: Int?
            public init(postId: Int64, before: Int64? = nil, limit: Int? = nil) {
                self.postId = postId
                self.before = before
                self.limit = limit
            }
        }
        /// `{users, next_before}`.
        public typealias Result = Page<SocialUser>
    }

    /// `timeline.home {before?, after?, limit?}` -> page.
    public enum TimelineHome: ProtocolOperation {
        public static let name = "timeline.home"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = PageParameters
        public typealias Result = PostPage
    }

    /// `timeline.user {user_id | handle, replies?, before?, after?, limit?}` -> page + `profile`.
    public enum TimelineUser: ProtocolOperation {
        public static let name = "timeline.user"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var userId: Int64?
            /// Without the `@`.
            public var handle: String?
            /// Replies too (default false: originals and reposts).
            public var replies: Bool?
            public var before: Int64?
            public var after: Int64?
            public var limit: Int?
            public init(
                userId: Int64? = nil, handle: String? = nil, replies: Bool? = nil, before: Int64? = nil,
                after: Int64? = nil, limit: Int? = nil
            ) {
                self.userId = userId
                self.handle = handle
                self.replies = replies
                self.before = before
                self.after = after
                self.limit = limit
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var posts: [SocialPost]
            public var before: Int64?
            public var after: Int64
            public var profile: UserProfile
            public init(page: PostPage, profile: UserProfile) {
                posts = page.posts
                before = page.before
                after = page.after
                self.profile = profile
            }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(posts, forKey: .posts)
                try c.encode(before, forKey: .before)
                try c.encode(after, forKey: .after)
                try c.encode(profile, forKey: .profile)
            }
        }
    }

    /// `timeline.thread {post_id, after?, limit?}` -> `{post, ancestors, replies, after}`.
    public enum TimelineThread: ProtocolOperation {
        public static let name = "timeline.thread"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var postId: Int64
            /// The seq of the last reply seen.
            public var after: Int64?
            public var limit: Int?
            public init(postId: Int64, after: Int64? = nil, limit: Int? = nil) {
                self.postId = postId
                self.after = after
                self.limit = limit
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var post: SocialPost
            /// Root first, at most 50.
            public var ancestors: [ThreadAncestor]
            /// Direct replies, oldest first.
            public var replies: [SocialPost]
            /// The seq to pass as `after` for the next replies, or null at the end.
            public var after: Int64?
            public init(post: SocialPost, ancestors: [ThreadAncestor], replies: [SocialPost], after: Int64?) {
                self.post = post
                self.ancestors = ancestors
                self.replies = replies
                self.after = after
            }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(post, forKey: .post)
                try c.encode(ancestors, forKey: .ancestors)
                try c.encode(replies, forKey: .replies)
                try c.encode(after, forKey: .after)
            }
        }
    }

    /// `timeline.mentions {before?, after?, limit?}` -> page.
    public enum TimelineMentions: ProtocolOperation {
        public static let name = "timeline.mentions"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = PageParameters
        public typealias Result = PostPage
    }

    /// `timeline.likes {user_id?, before?, limit?}` -> `{posts, next_before}` (newest like first; cursors are like ids).
    public enum TimelineLikes: ProtocolOperation {
        public static let name = "timeline.likes"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var userId: Int64?
            public var before: Int64?
            public var limit: Int?
            public init(userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil) {
                self.userId = userId
                self.before = before
                self.limit = limit
            }
        }
        /// `{posts, next_before}`.
        public typealias Result = Page<SocialPost>
    }

    /// `timeline.hashtag {tag, before?, after?, limit?}` -> page.
    public enum TimelineHashtag: ProtocolOperation {
        public static let name = "timeline.hashtag"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// Without the `#` (a leading `#` is ignored); compared lowercased.
            public var tag: String
            public var before: Int64?
            public var after: Int64?
            public var limit: Int?
            public init(tag: String, before: Int64? = nil, after: Int64? = nil, limit: Int? = nil) {
                self.tag = tag
                self.before = before
                self.after = after
                self.limit = limit
            }
        }
        public typealias Result = PostPage
    }
}

/// `{post_id}`.
public struct PostIdParameters: Codable, Sendable, Equatable {
    public var postId: Int64
    public init(postId: Int64) { self.postId = postId }
}

/// `{before?, after?, limit?}` of a timeline page: at most one of `before` and `after` (seqs); `limit` 1-100, 20.
public struct PageParameters: Codable, Sendable, Equatable {
    public var before: Int64?
    public var after: Int64?
    public var limit: Int?
    public init(before: Int64? = nil, after: Int64? = nil, limit: Int? = nil) {
        self.before = before
        self.after = after
        self.limit = limit
    }
}

/// `{post}`.
public struct PostResult: Codable, Sendable, Equatable {
    public var post: SocialPost
    public init(post: SocialPost) { self.post = post }
}

/// The answer of `post.like`/`post.unlike`: the original's id and count after the change, and whether I like it.
public struct PostLikeResult: Codable, Sendable, Equatable {
    public var postId: Int64
    public var likeCount: Int64
    public var liked: Bool
    public init(postId: Int64, likeCount: Int64, liked: Bool) {
        self.postId = postId
        self.likeCount = likeCount
        self.liked = liked
    }
}

/// A mention stored with a post.
public struct PostMention: Codable, Sendable, Equatable {
    public var userId: Int64
    public var handle: String
    public init(userId: Int64, handle: String) {
        self.userId = userId
        self.handle = handle
    }
}

/// A page of posts, newest first: `before` (the seq to pass for older posts, null at the end) and `after` (the seq to
/// pass for newer ones).
public struct PostPage: Codable, Sendable, Equatable {
    public var posts: [SocialPost]
    public var before: Int64?
    public var after: Int64
    public init(posts: [SocialPost], before: Int64?, after: Int64) {
        self.posts = posts
        self.before = before
        self.after = after
    }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(posts, forKey: .posts)
        try c.encode(before, forKey: .before)
        try c.encode(after, forKey: .after)
    }
}

/// One ancestor in `timeline.thread`: the post, or `{post_id, deleted: true}` when it is deleted or not visible.
public enum ThreadAncestor: Codable, Sendable, Equatable {
    /// A visible ancestor.
    case post(SocialPost)
    /// An ancestor that is deleted or not visible to the viewer: `{post_id, deleted: true}`.
    case gone(postId: Int64)

    /// The ancestor's post id.
    public var postId: Int64 {
        switch self {
        case .post(let post): post.postId
        case .gone(let id): id
        }
    }

    /// Whether the ancestor is deleted or not visible (`{post_id, deleted: true}` on the wire).
    public var deleted: Bool {
        if case .gone = self { return true }
        return false
    }

    /// The post, when it is visible.
    public var post: SocialPost? {
        if case .post(let post) = self { return post }
        return nil
    }

    enum GoneKeys: String, CodingKey {
        case postId, deleted
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: GoneKeys.self)
        if try c.decodeIfPresent(Bool.self, forKey: .deleted) == true {
            self = .gone(postId: try c.decode(Int64.self, forKey: .postId))
        } else {
            self = .post(try SocialPost(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .post(let post): try post.encode(to: encoder)
        case .gone(let id):
            var c = encoder.container(keyedBy: GoneKeys.self)
            try c.encode(id, forKey: .postId)
            try c.encode(true, forKey: .deleted)
        }
    }
}

/// A post as a viewer sees it (docs/protocol.md, "Posts and timelines"). A repost has `text` "" and carries the
/// original in `repost_of`; its counts and `liked`/`reposted` are the original's.
public struct SocialPost: Codable, Sendable, Equatable {
    public var postId: Int64
    public var seq: Int64
    public var author: SocialUser
    public var text: String
    public var createdAt: String
    public var replyTo: Int64?
    public var replyToUser: SocialUser?
    public var threadRoot: Int64?
    public var voiceClipId: Int64?
    public var mentions: [PostMention]
    public var hashtags: [String]
    public var likeCount: Int64
    public var repostCount: Int64
    public var replyCount: Int64
    public var liked: Bool
    public var reposted: Bool
    /// The photos, in order; omitted on the wire when none (issue 19).
    public var photos: [Photo]
    /// The original of a repost (boxed: a struct cannot hold itself).
    var original: Original?

    final class Original: Sendable, Equatable {
        let post: SocialPost
        init(_ post: SocialPost) { self.post = post }
        static func == (a: Original, b: Original) -> Bool { a.post == b.post }
    }

    /// The original of a repost.
    public var repostOf: SocialPost? {
        get { original?.post }
        set { original = newValue.map(Original.init) }
    }

    /// The post whose text, counts and author a reader sees: the original of a repost, else itself.
    public var shown: SocialPost { repostOf ?? self }

    public init(
        postId: Int64, seq: Int64, author: SocialUser, text: String, createdAt: String, replyTo: Int64? = nil,
        replyToUser: SocialUser? = nil,
        threadRoot: Int64? = nil, repostOf: SocialPost? = nil, voiceClipId: Int64? = nil, mentions: [PostMention] = [],
        hashtags: [String] = [],
        likeCount: Int64 = 0, repostCount: Int64 = 0, replyCount: Int64 = 0, liked: Bool = false,
        reposted: Bool = false,
        photos: [Photo] = []
    ) {
        self.postId = postId
        self.seq = seq
        self.author = author
        self.text = text
        self.createdAt = createdAt
        self.replyTo = replyTo
        self.replyToUser = replyToUser
        self.threadRoot = threadRoot
        self.voiceClipId = voiceClipId
        self.mentions = mentions
        self.hashtags = hashtags
        self.likeCount = likeCount
        self.repostCount = repostCount
        self.replyCount = replyCount
        self.liked = liked
        self.reposted = reposted
        self.photos = photos
        self.repostOf = repostOf
    }

    enum CodingKeys: String, CodingKey {
        case postId, seq, author, text, createdAt, replyTo, replyToUser, threadRoot, repostOf, voiceClipId, mentions,
            hashtags, likeCount,
            repostCount, replyCount, liked, reposted, photos
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            postId: try c.decode(Int64.self, forKey: .postId), seq: try c.decode(Int64.self, forKey: .seq),
            author: try c.decode(SocialUser.self, forKey: .author), text: try c.decode(String.self, forKey: .text),
            createdAt: try c.decode(String.self, forKey: .createdAt),
            replyTo: try c.decodeIfPresent(Int64.self, forKey: .replyTo),
            replyToUser: try c.decodeIfPresent(SocialUser.self, forKey: .replyToUser),
            threadRoot: try c.decodeIfPresent(Int64.self, forKey: .threadRoot),
            repostOf: try c.decodeIfPresent(SocialPost.self, forKey: .repostOf),
            voiceClipId: try c.decodeIfPresent(Int64.self, forKey: .voiceClipId),
            mentions: try c.decodeIfPresent([PostMention].self, forKey: .mentions) ?? [],
            hashtags: try c.decodeIfPresent([String].self, forKey: .hashtags) ?? [],
            likeCount: try c.decodeIfPresent(Int64.self, forKey: .likeCount) ?? 0,
            repostCount: try c.decodeIfPresent(Int64.self, forKey: .repostCount) ?? 0,
            replyCount: try c.decodeIfPresent(Int64.self, forKey: .replyCount) ?? 0,
            liked: try c.decodeIfPresent(Bool.self, forKey: .liked) ?? false,
            reposted: try c.decodeIfPresent(Bool.self, forKey: .reposted) ?? false,
            photos: try c.decodeIfPresent([Photo].self, forKey: .photos) ?? [])
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(postId, forKey: .postId)
        try c.encode(seq, forKey: .seq)
        try c.encode(author, forKey: .author)
        try c.encode(text, forKey: .text)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(replyTo, forKey: .replyTo)
        try c.encode(replyToUser, forKey: .replyToUser)
        try c.encode(threadRoot, forKey: .threadRoot)
        try c.encode(repostOf, forKey: .repostOf)
        try c.encode(voiceClipId, forKey: .voiceClipId)
        try c.encode(mentions, forKey: .mentions)
        try c.encode(hashtags, forKey: .hashtags)
        try c.encode(likeCount, forKey: .likeCount)
        try c.encode(repostCount, forKey: .repostCount)
        try c.encode(replyCount, forKey: .replyCount)
        try c.encode(liked, forKey: .liked)
        try c.encode(reposted, forKey: .reposted)
        if !photos.isEmpty { try c.encode(photos, forKey: .photos) }
    }
}
