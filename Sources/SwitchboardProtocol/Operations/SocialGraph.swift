//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Handles, social profiles, follows, blocks and mutes (docs/protocol.md, "Social").

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
        public static let stringParameters: [String: StringParameter] = ["handle": .lookup]
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

/// Result of `follow.requests`: `{requests, next_before (null at the end)}`.
public typealias FollowRequestsResult = Page<FollowRequestItem>

/// A page of users: `{users, next_before (null at the end)}`.
public typealias SocialUserPage = Page<SocialUser>
