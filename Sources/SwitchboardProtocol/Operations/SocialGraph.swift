//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Handles, social profiles, follows, blocks and mutes (docs/protocol.md, "Social").

/// A user as the social layer shows them: `{user_id, display_name, handle (string or null), protected}` — inside
/// posts, lists and notifications. One type serves the store (`SocialGraphRepository.socialUsers`) and the wire.
public struct SocialUser: Codable, Sendable, Equatable, Hashable {
    /// The user's id.
    public var userId: Int64
    /// The name the user chose.
    public var displayName: String
    /// The handle as typed, without the `@`; nil (JSON `null`) for a user without one.
    public var handle: String?
    /// Whether the account is protected (its posts reach active followers only).
    public var protected: Bool
    /// The id of the user's profile picture (`GET /photos/{id}`); absent when none.
    public var avatarPhotoId: Int64?

    public init(userId: Int64, displayName: String, handle: String?, protected: Bool, avatarPhotoId: Int64? = nil) {
        self.userId = userId
        self.displayName = displayName
        self.handle = handle
        self.protected = protected
        self.avatarPhotoId = avatarPhotoId
    }

    enum CodingKeys: String, CodingKey {
        case userId, displayName, handle, protected, avatarPhotoId
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(userId, forKey: .userId)
        try c.encode(displayName, forKey: .displayName)
        try c.encode(handle, forKey: .handle)  // `null` on the wire, not absent
        try c.encode(`protected`, forKey: .protected)
        try c.encodeIfPresent(avatarPhotoId, forKey: .avatarPhotoId)
    }
}

/// `stats` of a profile: `{posts, following, followers}` (exact counters).
public struct ProfileStats: Codable, Sendable, Equatable {
    public var posts: Int64
    public var following: Int64
    public var followers: Int64
    public init(posts: Int64, following: Int64, followers: Int64) {
        self.posts = posts
        self.following = following
        self.followers = followers
    }
}

/// `relationship` of a profile that is not one's own: `{following ("none"|"pending"|"active"), followed_by,
/// blocking, muting, friend}`.
public struct ProfileRelationship: Codable, Sendable, Equatable {
    /// The viewer's follow of the user.
    public var following: String
    /// Whether the user actively follows the viewer.
    public var followedBy: Bool
    /// Whether the viewer blocked the user.
    public var blocking: Bool
    /// Whether the viewer mutes the user.
    public var muting: Bool
    /// Whether they are friends.
    public var friend: Bool
    public init(following: String, followedBy: Bool, blocking: Bool, muting: Bool, friend: Bool) {
        self.following = following
        self.followedBy = followedBy
        self.blocking = blocking
        self.muting = muting
        self.friend = friend
    }
}

extension Ops {
    /// The social graph's ops (docs/protocol.md, "Profiles, handles and follows").
    public static let socialGraph: [any ProtocolOperation.Type] = [
        HandleSet.self, HandleCheck.self, Follow.self, Unfollow.self, FollowRequests.self, FollowApprove.self,
        FollowDeny.self,
        Followers.self, Following.self, FollowerRemove.self, Block.self, Unblock.self, Mute.self, Unmute.self,
        BlocksList.self,
        MutesList.self,
    ]

    /// `handle.set {handle}` -> `{profile}`.
    public enum HandleSet: ProtocolOperation {
        public static let name = "handle.set"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = HandleParameters
        public typealias Result = ProfileResult
    }

    /// `handle.check {handle}` -> `{handle, available, reason}`.
    public enum HandleCheck: ProtocolOperation {
        public static let name = "handle.check"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = HandleParameters
        public typealias Result = HandleCheckResult
    }

    /// `follow {user_id}` -> `{state, profile}`.
    public enum Follow: ProtocolOperation {
        public static let name = "follow"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = UserIDParameters
        public typealias Result = FollowResult
    }

    /// `unfollow {user_id}` -> `{}` (also withdraws a request).
    public enum Unfollow: ProtocolOperation {
        public static let name = "unfollow"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = UserIDParameters
        public typealias Result = Empty
    }

    /// `follow.requests {before?, limit?}` -> `{requests, next_before}`.
    public enum FollowRequests: ProtocolOperation {
        public static let name = "follow.requests"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = SocialPageParameters
        public typealias Result = FollowRequestsResult
    }

    /// `follow.approve {user_id}` -> `{}`.
    public enum FollowApprove: ProtocolOperation {
        public static let name = "follow.approve"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = UserIDParameters
        public typealias Result = Empty
    }

    /// `follow.deny {user_id}` -> `{}`.
    public enum FollowDeny: ProtocolOperation {
        public static let name = "follow.deny"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = UserIDParameters
        public typealias Result = Empty
    }

    /// `followers {user_id?, before?, limit?}` -> `{users, next_before}`.
    public enum Followers: ProtocolOperation {
        public static let name = "followers"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = SocialPageParameters
        public typealias Result = SocialUserPage
    }

    /// `following {user_id?, before?, limit?}` -> `{users, next_before}`.
    public enum Following: ProtocolOperation {
        public static let name = "following"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = SocialPageParameters
        public typealias Result = SocialUserPage
    }

    /// `follower.remove {user_id}` -> `{}`.
    public enum FollowerRemove: ProtocolOperation {
        public static let name = "follower.remove"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = UserIDParameters
        public typealias Result = Empty
    }

    /// `block {user_id}` -> `{}`.
    public enum Block: ProtocolOperation {
        public static let name = "block"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = UserIDParameters
        public typealias Result = Empty
    }

    /// `unblock {user_id}` -> `{}`.
    public enum Unblock: ProtocolOperation {
        public static let name = "unblock"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = UserIDParameters
        public typealias Result = Empty
    }

    /// `mute {user_id}` -> `{}`.
    public enum Mute: ProtocolOperation {
        public static let name = "mute"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = UserIDParameters
        public typealias Result = Empty
    }

    /// `unmute {user_id}` -> `{}`.
    public enum Unmute: ProtocolOperation {
        public static let name = "unmute"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = UserIDParameters
        public typealias Result = Empty
    }

    /// `blocks.list {before?, limit?}` -> `{users, next_before}`.
    public enum BlocksList: ProtocolOperation {
        public static let name = "blocks.list"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = SocialPageParameters
        public typealias Result = SocialUserPage
    }

    /// `mutes.list {before?, limit?}` -> `{users, next_before}`.
    public enum MutesList: ProtocolOperation {
        public static let name = "mutes.list"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = SocialPageParameters
        public typealias Result = SocialUserPage
    }
}

/// `{handle}`.
public struct HandleParameters: Codable, Sendable, Equatable {
    public var handle: String
    public init(handle: String) { self.handle = handle }
}

/// `{user_id?, before?, limit?}` of the social lists (`user_id` only for `followers`/`following`).
public struct SocialPageParameters: Codable, Sendable, Equatable {
    public var userId: Int64?
    public var before: Int64?
    public var limit: Int?
    public init(userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil) {
        self.userId = userId
        self.before = before
        self.limit = limit
    }
}

/// Result of `handle.check`: `{handle, available, reason (null or "invalid"/"reserved"/"taken")}`.
public struct HandleCheckResult: Codable, Sendable, Equatable {
    public var handle: String
    public var available: Bool
    public var reason: String?
    public init(handle: String, available: Bool, reason: String?) {
        self.handle = handle
        self.available = available
        self.reason = reason
    }
    enum CodingKeys: String, CodingKey { case handle, available, reason }
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(handle, forKey: .handle)
        try c.encode(available, forKey: .available)
        try c.encode(reason, forKey: .reason)
    }
}

/// Result of `follow`: `{state ("active"|"pending"), profile}`.
public struct FollowResult: Codable, Sendable, Equatable {
    public var state: String
    public var profile: UserProfile
    public init(state: String, profile: UserProfile) {
        self.state = state
        self.profile = profile
    }
}

/// A pending follow request: `{user, created_at, request_id}`.
public struct FollowRequestItem: Codable, Sendable, Equatable {
    public var user: SocialUser
    public var createdAt: String
    public var requestId: Int64
    public init(user: SocialUser, createdAt: String, requestId: Int64) {
        self.user = user
        self.createdAt = createdAt
        self.requestId = requestId
    }
}

/// Result of `follow.requests`: `{requests, next_before (null at the end)}`.
public typealias FollowRequestsResult = Page<FollowRequestItem>

/// A page of users: `{users, next_before (null at the end)}`.
public typealias SocialUserPage = Page<SocialUser>

/// The social graph's events, to the acting user's own devices.
public enum SocialGraphEvents {
    /// `follow.changed {user_id, state ("active"|"pending"|"none")}`: the follow of `user_id` by the recipient.
    public struct FollowChanged: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "follow.changed"
        public var userId: Int64
        public var state: String
        public init(userId: Int64, state: String) {
            self.userId = userId
            self.state = state
        }
    }

    /// `relationship.changed {user_id, blocking, muting}`.
    public struct RelationshipChanged: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "relationship.changed"
        public var userId: Int64
        public var blocking: Bool
        public var muting: Bool
        public init(userId: Int64, blocking: Bool, muting: Bool) {
            self.userId = userId
            self.blocking = blocking
            self.muting = muting
        }
    }
}
