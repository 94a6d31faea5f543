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
        public static let stringParameters: [String: StringParameter] = ["text": .message]
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

    /// `timeline.likes {user_id?, before?, limit?}` -> `{posts, next_before}` (newest like first; cursors are like
    /// ids).
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
