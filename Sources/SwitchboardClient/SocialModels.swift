//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

// The social layer's objects as the client reads them (docs/protocol.md, "Social"). They decode the server's
// replies and events leniently: a field a later server adds is ignored, and one an event leaves out takes its
// neutral value (0, false, [], null), so that one model serves pages, events and the `{post_id, deleted: true}`
// stand-ins of a thread's ancestors. `jsonValue` gives an object back in its wire form (snake_case keys) for
// tools that print it (`switchboard-cli --json`).

/// The social layer's client-side models.
public enum SocialAPI {
    /// `social_user`: `{user_id, display_name, handle, protected}`.
    public struct User: Codable, Sendable, Equatable, Hashable {
        public var userId: Int64
        public var displayName: String
        /// Without the `@`; nil for a user without a handle.
        public var handle: String?
        public var protected: Bool
        /// The profile picture's photo id (`GET /photos/{id}`); nil when none.
        public var avatarPhotoId: Int64?

        public init(userId: Int64, displayName: String, handle: String?, protected: Bool, avatarPhotoId: Int64? = nil) {
            self.userId = userId
            self.displayName = displayName
            self.handle = handle
            self.protected = protected
            self.avatarPhotoId = avatarPhotoId
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            userId = try c.decode(Int64.self, forKey: .userId)
            displayName = try c.decodeIfPresent(String.self, forKey: .displayName) ?? ""
            handle = try c.decodeIfPresent(String.self, forKey: .handle)
            protected = try c.decodeIfPresent(Bool.self, forKey: .protected) ?? false
            avatarPhotoId = try c.decodeIfPresent(Int64.self, forKey: .avatarPhotoId)
        }

        /// `@handle`, else the display name.
        public var label: String { handle.map { "@" + $0 } ?? displayName }
    }

    /// A mention stored with a post.
    public struct Mention: Codable, Sendable, Equatable {
        public var userId: Int64
        public var handle: String

        public init(userId: Int64, handle: String) {
            self.userId = userId
            self.handle = handle
        }
    }

    /// `post` (a repost carries the original in `repostOf`; its counts and `liked`/`reposted` are the original's).
    public struct Post: Codable, Sendable, Equatable {
        public var postId: Int64
        public var seq: Int64
        /// nil only in a thread's stand-in for a deleted or invisible ancestor (`deleted` true).
        public var author: User?
        public var text: String
        public var createdAt: String
        public var replyTo: Int64?
        public var replyToUser: User?
        public var threadRoot: Int64?
        public var voiceClipId: Int64?
        public var mentions: [Mention]
        public var hashtags: [String]
        public var likeCount: Int64
        public var repostCount: Int64
        public var replyCount: Int64
        public var liked: Bool
        public var reposted: Bool
        /// A thread's ancestor that was deleted or is not visible (`{post_id, deleted: true}`).
        public var deleted: Bool
        /// The post's photos, in order (empty when none).
        public var photos: [Photo] = []
        private var original: Box?

        /// The original of a repost.
        public var repostOf: Post? {
            get { original?.post }
            set { original = newValue.map(Box.init) }
        }

        /// The post whose text, counts and author a reader sees: the original of a repost, else itself.
        public var shown: Post { repostOf ?? self }

        enum CodingKeys: String, CodingKey {
            case postId, seq, author, text, createdAt, replyTo, replyToUser, threadRoot, voiceClipId, mentions, hashtags
            case likeCount, repostCount, replyCount, liked, reposted, deleted, repostOf, photos
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            postId = try c.decode(Int64.self, forKey: .postId)
            seq = try c.decodeIfPresent(Int64.self, forKey: .seq) ?? 0
            author = try c.decodeIfPresent(User.self, forKey: .author)
            text = try c.decodeIfPresent(String.self, forKey: .text) ?? ""
            createdAt = try c.decodeIfPresent(String.self, forKey: .createdAt) ?? ""
            replyTo = try c.decodeIfPresent(Int64.self, forKey: .replyTo)
            replyToUser = try c.decodeIfPresent(User.self, forKey: .replyToUser)
            threadRoot = try c.decodeIfPresent(Int64.self, forKey: .threadRoot)
            voiceClipId = try c.decodeIfPresent(Int64.self, forKey: .voiceClipId)
            mentions = try c.decodeIfPresent([Mention].self, forKey: .mentions) ?? []
            hashtags = try c.decodeIfPresent([String].self, forKey: .hashtags) ?? []
            likeCount = try c.decodeIfPresent(Int64.self, forKey: .likeCount) ?? 0
            repostCount = try c.decodeIfPresent(Int64.self, forKey: .repostCount) ?? 0
            replyCount = try c.decodeIfPresent(Int64.self, forKey: .replyCount) ?? 0
            liked = try c.decodeIfPresent(Bool.self, forKey: .liked) ?? false
            reposted = try c.decodeIfPresent(Bool.self, forKey: .reposted) ?? false
            deleted = try c.decodeIfPresent(Bool.self, forKey: .deleted) ?? false
            original = try c.decodeIfPresent(Post.self, forKey: .repostOf).map(Box.init)
            photos = try c.decodeIfPresent([Photo].self, forKey: .photos) ?? []
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(postId, forKey: .postId)
            if deleted {
                try c.encode(true, forKey: .deleted)
                return
            }
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

        /// The immutable holder of a repost's original (a struct cannot contain itself).
        final class Box: Sendable, Equatable {
            let post: Post
            init(_ post: Post) { self.post = post }
            static func == (a: Box, b: Box) -> Bool { a.post == b.post }
        }
    }

    /// A timeline page: `{posts (newest first), before, after}`; `timeline.user` adds `profile`, `timeline.likes`
    /// answers `next_before` instead of `before`.
    public struct Page: Decodable, Sendable, Equatable {
        public var posts: [Post]
        /// Pass as `before` for older posts (nil at the end).
        public var before: Int64?
        /// Pass as `after` for newer posts.
        public var after: Int64?
        /// `timeline.likes`: the like id to pass as `before`.
        public var nextBefore: Int64?
        /// `timeline.user`: the author's profile.
        public var profile: Profile?
    }

    /// `timeline.thread`: the post, its ancestors (root first) and a page of its direct replies (oldest first).
    public struct Thread: Decodable, Sendable, Equatable {
        public var post: Post
        public var ancestors: [Post]
        public var replies: [Post]
        /// The seq to pass as `after` for the next replies (nil at the end).
        public var after: Int64?
    }

    /// `relationship` in another user's profile.
    public struct Relationship: Codable, Sendable, Equatable {
        /// `none`, `pending` or `active`.
        public var following: String
        public var followedBy: Bool
        public var blocking: Bool
        public var muting: Bool
        public var friend: Bool

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            following = try c.decodeIfPresent(String.self, forKey: .following) ?? "none"
            followedBy = try c.decodeIfPresent(Bool.self, forKey: .followedBy) ?? false
            blocking = try c.decodeIfPresent(Bool.self, forKey: .blocking) ?? false
            muting = try c.decodeIfPresent(Bool.self, forKey: .muting) ?? false
            friend = try c.decodeIfPresent(Bool.self, forKey: .friend) ?? false
        }
    }

    /// `stats` of a profile.
    public struct Stats: Codable, Sendable, Equatable {
        public var posts: Int64
        public var following: Int64
        public var followers: Int64
    }

    /// `profile` with the social fields (`profile.get`, `handle.set`, `profile.update`, `follow`).
    public struct Profile: Codable, Sendable, Equatable {
        public var userId: Int64
        public var displayName: String
        public var handle: String?
        public var bio: String
        public var protected: Bool
        /// Own profile only: `friends`, `mutuals` or `anyone`.
        public var dmPolicy: String?
        public var stats: Stats?
        /// Another user's profile only.
        public var relationship: Relationship?
        /// The profile picture; nil when none.
        public var avatar: Photo?

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            userId = try c.decode(Int64.self, forKey: .userId)
            displayName = try c.decodeIfPresent(String.self, forKey: .displayName) ?? ""
            handle = try c.decodeIfPresent(String.self, forKey: .handle)
            bio = try c.decodeIfPresent(String.self, forKey: .bio) ?? ""
            protected = try c.decodeIfPresent(Bool.self, forKey: .protected) ?? false
            dmPolicy = try c.decodeIfPresent(String.self, forKey: .dmPolicy)
            stats = try c.decodeIfPresent(Stats.self, forKey: .stats)
            relationship = try c.decodeIfPresent(Relationship.self, forKey: .relationship)
            avatar = try c.decodeIfPresent(Photo.self, forKey: .avatar)
        }
    }

    /// `handle.check`.
    public struct HandleCheck: Codable, Sendable, Equatable {
        public var handle: String
        public var available: Bool
        /// nil, `invalid`, `reserved` or `taken`.
        public var reason: String?
    }

    /// `follow`: the state of the follow (`active` or `pending`) and the followee's profile.
    public struct FollowResult: Decodable, Sendable, Equatable {
        public var state: String
        public var profile: Profile?
    }

    /// A page of users (`followers`, `following`, `blocks.list`, `mutes.list`, `post.likers`).
    public struct UserPage: Decodable, Sendable, Equatable {
        public var users: [User]
        public var nextBefore: Int64?
    }

    /// An incoming follow request.
    public struct FollowRequest: Decodable, Sendable, Equatable {
        public var user: User
        public var createdAt: String
        public var requestId: Int64
    }

    /// `follow.requests`.
    public struct FollowRequests: Decodable, Sendable, Equatable {
        public var requests: [FollowRequest]
        public var nextBefore: Int64?
    }

    /// `post.like` / `post.unlike`.
    public struct LikeResult: Decodable, Sendable, Equatable {
        public var postId: Int64
        public var likeCount: Int64
        public var liked: Bool
    }

    /// A group of `notifications.list`.
    public struct NotificationGroup: Decodable, Sendable, Equatable {
        /// `follow`, `follow_request`, `like`, `repost`, `reply`, `mention`.
        public var kind: String
        public var post: Post?
        public var actors: [User]
        public var actorCount: Int64
        public var latestAt: String
        public var newestId: Int64
        public var unread: Bool
    }

    /// `notifications.list`.
    public struct Notifications: Decodable, Sendable, Equatable {
        public var groups: [NotificationGroup]
        public var unread: Int64
        public var nextBefore: Int64?
    }

    /// `{unread}` of `notifications.unread` and `notifications.read`.
    public struct Unread: Decodable, Sendable, Equatable {
        public var unread: Int64
    }

    /// A deletion in a `live.subscribe` catch-up.
    public struct Deletion: Decodable, Sendable, Equatable {
        public var postId: Int64
        public var seq: Int64
    }

    /// `live.subscribe`: the connection's streams, the clock, and what was missed since `since`.
    public struct Subscription: Decodable, Sendable, Equatable {
        public var subscribed: [String]
        public var seq: Int64?
        /// Missed posts, oldest first.
        public var posts: [Post]
        public var deleted: [Deletion]
        /// More was missed than the server replays: reload the pages.
        public var resyncRequired: Bool

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            subscribed = try c.decodeIfPresent([String].self, forKey: .subscribed) ?? []
            seq = try c.decodeIfPresent(Int64.self, forKey: .seq)
            posts = try c.decodeIfPresent([Post].self, forKey: .posts) ?? []
            deleted = try c.decodeIfPresent([Deletion].self, forKey: .deleted) ?? []
            resyncRequired = try c.decodeIfPresent(Bool.self, forKey: .resyncRequired) ?? false
        }

        enum CodingKeys: String, CodingKey { case subscribed, seq, posts, deleted, resyncRequired }
    }

    /// The notification inside a `notification` event.
    public struct LiveNotification: Decodable, Sendable, Equatable {
        public var id: Int64
        public var kind: String
        public var actor: User?
        public var postId: Int64?
        public var createdAt: String?
    }

    /// A social event of a live page or of the user's own devices.
    public enum Event: Sendable, Equatable {
        /// `post.new {post}` (the viewer fields `liked`/`reposted` are false).
        case postNew(Post)
        /// `post.deleted {post_id, seq, author_id, thread_root}`.
        case postDeleted(postId: Int64, seq: Int64, authorId: Int64?, threadRoot: Int64?)
        /// `post.counts {post_id, like_count, repost_count, reply_count}`.
        case postCounts(postId: Int64, likeCount: Int64, repostCount: Int64, replyCount: Int64)
        /// `profile.counts {user_id, posts, following, followers}`.
        case profileCounts(userId: Int64, posts: Int64, following: Int64, followers: Int64)
        /// `notification {notification, unread}`.
        case notification(LiveNotification, unread: Int64)
        /// `notifications.read {read_id, unread}` (another device of the user read them).
        case notificationsRead(readId: Int64, unread: Int64)
        /// `follow.changed {user_id, state}` to the follower's devices.
        case followChanged(userId: Int64, state: String)
        /// `relationship.changed {user_id, blocking, muting}` to the user's devices.
        case relationshipChanged(userId: Int64, blocking: Bool, muting: Bool)

        /// The names of the social events.
        public static let names: Set<String> = [
            "post.new", "post.deleted", "post.counts", "profile.counts", "notification", "notifications.read", "follow.changed",
            "relationship.changed",
        ]

        /// The social event a raw event is, or nil (another feature's event, or one that does not decode).
        public init?(_ raw: RawEvent) {
            guard Self.names.contains(raw.name) else { return nil }
            do {
                switch raw.name {
                case "post.new":
                    self = .postNew(try raw.decode(PostBox.self).post)
                case "post.deleted":
                    let e = try raw.decode(Deleted.self)
                    self = .postDeleted(postId: e.postId, seq: e.seq ?? 0, authorId: e.authorId, threadRoot: e.threadRoot)
                case "post.counts":
                    let e = try raw.decode(Counts.self)
                    self = .postCounts(postId: e.postId, likeCount: e.likeCount ?? 0, repostCount: e.repostCount ?? 0, replyCount: e.replyCount ?? 0)
                case "profile.counts":
                    let e = try raw.decode(ProfileCounts.self)
                    self = .profileCounts(userId: e.userId, posts: e.posts ?? 0, following: e.following ?? 0, followers: e.followers ?? 0)
                case "notification":
                    let e = try raw.decode(NotificationBox.self)
                    self = .notification(e.notification, unread: e.unread ?? 0)
                case "notifications.read":
                    let e = try raw.decode(Read.self)
                    self = .notificationsRead(readId: e.readId ?? 0, unread: e.unread ?? 0)
                case "follow.changed":
                    let e = try raw.decode(FollowChanged.self)
                    self = .followChanged(userId: e.userId, state: e.state)
                default:
                    let e = try raw.decode(RelationshipChanged.self)
                    self = .relationshipChanged(userId: e.userId, blocking: e.blocking ?? false, muting: e.muting ?? false)
                }
            } catch {
                return nil
            }
        }

        private struct PostBox: Decodable { var post: Post }
        private struct Deleted: Decodable { var postId: Int64; var seq: Int64?; var authorId: Int64?; var threadRoot: Int64? }
        private struct Counts: Decodable { var postId: Int64; var likeCount: Int64?; var repostCount: Int64?; var replyCount: Int64? }
        private struct ProfileCounts: Decodable { var userId: Int64; var posts: Int64?; var following: Int64?; var followers: Int64? }
        private struct NotificationBox: Decodable { var notification: LiveNotification; var unread: Int64? }
        private struct Read: Decodable { var readId: Int64?; var unread: Int64? }
        private struct FollowChanged: Decodable { var userId: Int64; var state: String }
        private struct RelationshipChanged: Decodable { var userId: Int64; var blocking: Bool?; var muting: Bool? }
    }

    /// `value` in its wire form (snake_case keys), for printing.
    public static func jsonValue(_ value: some Encodable) -> JSONValue {
        guard let data = try? WireCoding.encoder().encode(value), let json = try? JSONDecoder().decode(JSONValue.self, from: data) else {
            return .null
        }
        return json
    }
}
