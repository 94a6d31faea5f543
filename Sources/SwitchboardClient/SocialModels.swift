//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

// The social layer's objects are the protocol's own (docs/protocol.md, "Social"): `SocialPost`, `SocialUser`,
// `UserProfile`, `PostPage`, `Page<SocialUser>`, ... in SwitchboardProtocol, shared with the server. This file
// reads the social events from raw events and gives an object back in its wire form for tools that print it.

/// The social layer's client-side helpers: `Event` reads a social event, `jsonValue` prints an object.
public enum SocialAPI {
    /// A social event of a live page or of the user's own devices, decoded as the protocol's event types.
    public enum Event: Sendable, Equatable {
        /// `post.new {post}` (the viewer fields `liked`/`reposted` are false).
        case postNew(SocialPost)
        /// `post.deleted {post_id, seq, author_id, thread_root}`.
        case postDeleted(postId: Int64, seq: Int64, authorId: Int64, threadRoot: Int64?)
        /// `post.counts {post_id, like_count, repost_count, reply_count}`.
        case postCounts(postId: Int64, likeCount: Int64, repostCount: Int64, replyCount: Int64)
        /// `post.photos {post_id, photos}` (one of the post's photos was deleted; empty when none is left).
        case postPhotos(postId: Int64, photos: [Photo])
        /// `profile.counts {user_id, posts, following, followers}`.
        case profileCounts(userId: Int64, posts: Int64, following: Int64, followers: Int64)
        /// `notification {notification, unread}`.
        case notification(LiveEvents.Notification, unread: Int64)
        /// `notifications.read {read_id, unread}` (another device of the user read them).
        case notificationsRead(readId: Int64, unread: Int64)
        /// `follow.changed {user_id, state}` to the follower's devices.
        case followChanged(userId: Int64, state: String)
        /// `relationship.changed {user_id, blocking, muting}` to the user's devices.
        case relationshipChanged(userId: Int64, blocking: Bool, muting: Bool)

        /// The names of the social events.
        public static let names: Set<String> = [
            LiveEvents.PostNew.name, LiveEvents.PostDeleted.name, LiveEvents.PostCounts.name,
            LiveEvents.PostPhotos.name, LiveEvents.ProfileCounts.name, LiveEvents.NotificationEvent.name,
            SocialNotificationsReadEvent.name,
            SocialGraphEvents.FollowChanged.name, SocialGraphEvents.RelationshipChanged.name,
        ]

        /// The social event a raw event is, or nil (another feature's event, or one that does not decode).
        public init?(_ raw: RawEvent) {
            guard Self.names.contains(raw.name), let event = try? Self.decode(raw) else { return nil }
            self = event
        }

        private static func decode(_ raw: RawEvent) throws(SwitchboardClientError) -> Event {
            switch raw.name {
            case LiveEvents.PostNew.name:
                return .postNew(try raw.decode(LiveEvents.PostNew.self).post)
            case LiveEvents.PostDeleted.name:
                let e = try raw.decode(LiveEvents.PostDeleted.self)
                return .postDeleted(postId: e.postId, seq: e.seq, authorId: e.authorId, threadRoot: e.threadRoot)
            case LiveEvents.PostCounts.name:
                let e = try raw.decode(LiveEvents.PostCounts.self)
                return .postCounts(
                    postId: e.postId, likeCount: e.likeCount, repostCount: e.repostCount, replyCount: e.replyCount)
            case LiveEvents.PostPhotos.name:
                let e = try raw.decode(LiveEvents.PostPhotos.self)
                return .postPhotos(postId: e.postId, photos: e.photos)
            case LiveEvents.ProfileCounts.name:
                let e = try raw.decode(LiveEvents.ProfileCounts.self)
                return .profileCounts(userId: e.userId, posts: e.posts, following: e.following, followers: e.followers)
            case LiveEvents.NotificationEvent.name:
                let e = try raw.decode(LiveEvents.NotificationEvent.self)
                return .notification(e.notification, unread: e.unread)
            case SocialNotificationsReadEvent.name:
                let e = try raw.decode(SocialNotificationsReadEvent.self)
                return .notificationsRead(readId: e.readId, unread: e.unread)
            case SocialGraphEvents.FollowChanged.name:
                let e = try raw.decode(SocialGraphEvents.FollowChanged.self)
                return .followChanged(userId: e.userId, state: e.state)
            default:
                let e = try raw.decode(SocialGraphEvents.RelationshipChanged.self)
                return .relationshipChanged(userId: e.userId, blocking: e.blocking, muting: e.muting)
            }
        }
    }

    /// `value` in its wire form (snake_case keys), for printing.
    public static func jsonValue(_ value: some Encodable) -> JSONValue {
        guard let data = try? WireCoding.encoder().encode(value),
            let json = try? JSONDecoder().decode(JSONValue.self, from: data)
        else { return .null }
        return json
    }
}
