//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

// The social layer (docs/protocol.md, "Social"): handles, profiles, follows, blocks and mutes, posts, timelines,
// likes and reposts, social notifications and live pages. Requests and results are the ops' own types
// (`Ops.PostCreate`, ... in SwitchboardProtocol, shared with the server); social events arrive on `events` as
// `.other(RawEvent)`: `SocialAPI.Event(raw)` reads them into the protocol's event types.
//
// Resending after a lost reply: reads and the idempotent writes (follow, like, block, ... answer the current state
// when repeated; `post.repost` answers the existing repost) are resent, and so is `post.create`, which always carries
// a `client_id` (a fresh UUID unless the caller gives one): the server answers a resend with the post it already
// made, so a post whose reply was lost is stored once (docs/protocol.md, `post.create`).

/// Handles, profiles, follows, blocks and mutes.
extension SwitchboardClient {
    /// `handle.set {handle}` (without the `@`).
    /// - Throws: `.server(ServerError)`: `handle_taken`, `bad_request` (invalid or reserved).
    public func setHandle(_ handle: String) async throws(SwitchboardClientError) -> UserProfile {
        try await send(Ops.HandleSet.self, .init(handle: handle), resendable: true).profile
    }

    /// `handle.check {handle}`: whether it is free (else why: `invalid`, `reserved`, `taken`).
    public func checkHandle(_ handle: String) async throws(SwitchboardClientError) -> HandleCheckResult {
        try await send(Ops.HandleCheck.self, .init(handle: handle), resendable: true)
    }

    /// `profile.get {user_id}` with the social fields (stats, relationship).
    /// - Throws: `.server(ServerError)`: `not_found`.
    public func socialProfile(userId: Int64) async throws(SwitchboardClientError) -> UserProfile {
        try await send(Ops.ProfileGet.self, .init(userId: userId), resendable: true).profile
    }

    /// `profile.get {handle}` (without the `@`).
    public func socialProfile(handle: String) async throws(SwitchboardClientError) -> UserProfile {
        try await send(Ops.ProfileGet.self, .init(handle: handle), resendable: true).profile
    }

    /// `profile.update` of the social fields: bio (≤160 characters), protected, DM policy (`friends`, `mutuals`,
    /// `anyone`); nil leaves a field as it is.
    public func updateSocialProfile(
        bio: String? = nil, protected: Bool? = nil, dmPolicy: String? = nil
    ) async throws(SwitchboardClientError) -> UserProfile {
        try await send(
            Ops.ProfileUpdate.self, .init(bio: bio, protected: protected, dmPolicy: dmPolicy), resendable: true
        ).profile
    }

    /// `follow {user_id}`: `active`, or `pending` for a protected account (a request it approves).
    /// - Throws: `.server(ServerError)`: `handle_required`, `not_found`, `bad_request` (yourself), `rate_limited`,
    ///   `too_many`.
    public func follow(_ userId: Int64) async throws(SwitchboardClientError) -> FollowResult {
        try await send(Ops.Follow.self, .init(userId: userId), resendable: true)
    }

    /// `unfollow {user_id}` (also withdraws a pending request).
    public func unfollow(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.Unfollow.self, .init(userId: userId), resendable: true)
    }

    /// `follow.requests {before?, limit?}`: incoming pending requests, newest first.
    public func followRequests(
        before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> FollowRequestsResult {
        try await send(Ops.FollowRequests.self, .init(before: before, limit: limit), resendable: true)
    }

    /// `follow.approve {user_id}` (the requester).
    public func approveFollow(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.FollowApprove.self, .init(userId: userId), resendable: true)
    }

    /// `follow.deny {user_id}` (the requester).
    public func denyFollow(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.FollowDeny.self, .init(userId: userId), resendable: true)
    }

    /// `followers {user_id?, before?, limit?}` (default: yours), newest follow first.
    public func followers(
        of userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> SocialUserPage {
        try await send(Ops.Followers.self, .init(userId: userId, before: before, limit: limit), resendable: true)
    }

    /// `following {user_id?, before?, limit?}` (default: yours), newest follow first.
    public func following(
        of userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> SocialUserPage {
        try await send(Ops.Following.self, .init(userId: userId, before: before, limit: limit), resendable: true)
    }

    /// `follower.remove {user_id}`.
    public func removeFollower(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.FollowerRemove.self, .init(userId: userId), resendable: true)
    }

    /// `block {user_id}` (removes follows both ways).
    public func block(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.Block.self, .init(userId: userId), resendable: true)
    }

    /// `unblock {user_id}`.
    public func unblock(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.Unblock.self, .init(userId: userId), resendable: true)
    }

    /// `mute {user_id}`.
    public func mute(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.Mute.self, .init(userId: userId), resendable: true)
    }

    /// `unmute {user_id}`.
    public func unmute(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.Unmute.self, .init(userId: userId), resendable: true)
    }

    /// `blocks.list {before?, limit?}`.
    public func blockedUsers(
        before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> SocialUserPage {
        try await send(Ops.BlocksList.self, .init(before: before, limit: limit), resendable: true)
    }

    /// `mutes.list {before?, limit?}`.
    public func mutedUsers(
        before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> SocialUserPage {
        try await send(Ops.MutesList.self, .init(before: before, limit: limit), resendable: true)
    }
}

/// Posts, likes, reposts and timelines.
extension SwitchboardClient {
    /// `post.create {text?, reply_to?, voice_clip_id?, client_id, photo_ids?}`: a post, or a reply to `replyTo`.
    /// Resent after a reconnect that lost the reply, with the same `client_id` (a fresh UUID unless given), so it
    /// is stored once. `photoIds`: 0-4 of your photos (`POST /photos`), in order; with photos the text may be empty.
    /// - Throws: `.server(ServerError)`: `handle_required`, `invalid_text`, `not_found`, `rate_limited`.
    public func publishPost(
        _ text: String?, replyTo: Int64? = nil, voiceClipId: Int64? = nil, clientId: String? = nil,
        photoIds: [Int64]? = nil
    ) async throws(SwitchboardClientError) -> SocialPost {
        let parameters = Ops.PostCreate.Parameters(
            text: text, replyTo: replyTo, voiceClipId: voiceClipId, clientId: clientId ?? UUID().uuidString,
            photoIds: photoIds)
        return try await send(Ops.PostCreate.self, parameters, resendable: true).post
    }

    /// `post.get {post_id}`.
    public func socialPost(_ postId: Int64) async throws(SwitchboardClientError) -> SocialPost {
        try await send(Ops.PostGet.self, .init(postId: postId), resendable: true).post
    }

    /// `post.delete {post_id}` (own post or repost; administrators any).
    /// - Throws: `.server(ServerError)`: `not_found`, `forbidden`.
    public func deletePost(_ postId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.PostDelete.self, .init(postId: postId), resendable: true)
    }

    /// `post.like {post_id}` (a repost's id likes its original).
    public func like(_ postId: Int64) async throws(SwitchboardClientError) -> PostLikeResult {
        try await send(Ops.PostLike.self, .init(postId: postId), resendable: true)
    }

    /// `post.unlike {post_id}`.
    public func unlike(_ postId: Int64) async throws(SwitchboardClientError) -> PostLikeResult {
        try await send(Ops.PostUnlike.self, .init(postId: postId), resendable: true)
    }

    /// `post.repost {post_id}`: the repost (the existing one when repeated).
    /// - Throws: `.server(ServerError)`: `forbidden` (a protected author's post), `not_found`, `rate_limited`.
    public func repost(_ postId: Int64) async throws(SwitchboardClientError) -> SocialPost {
        try await send(Ops.PostRepost.self, .init(postId: postId), resendable: true).post
    }

    /// `post.unrepost {post_id}` (the original's id).
    public func unrepost(_ postId: Int64) async throws(SwitchboardClientError) {
        _ = try await send(Ops.PostUnrepost.self, .init(postId: postId), resendable: true)
    }

    /// `post.likers {post_id, before?, limit?}`, newest like first.
    public func likers(
        of postId: Int64, before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> Page<SocialUser> {
        try await send(Ops.PostLikers.self, .init(postId: postId, before: before, limit: limit), resendable: true)
    }

    /// `timeline.home {before? | after?, limit?}`: own posts and the posts and reposts of active followees.
    public func homeTimeline(
        before: Int64? = nil, after: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> PostPage {
        try await send(Ops.TimelineHome.self, .init(before: before, after: after, limit: limit), resendable: true)
    }

    /// `timeline.user {user_id | handle, replies?, before? | after?, limit?}`: the page and the author's profile.
    /// - Throws: `.server(ServerError)`: `not_found`, `forbidden` (a protected account, not followed).
    public func userTimeline(
        userId: Int64? = nil, handle: String? = nil, replies: Bool? = nil, before: Int64? = nil, after: Int64? = nil,
        limit: Int? = nil
    ) async throws(SwitchboardClientError) -> Ops.TimelineUser.Result {
        let parameters = Ops.TimelineUser.Parameters(
            userId: userId, handle: handle, replies: replies, before: before, after: after, limit: limit)
        return try await send(Ops.TimelineUser.self, parameters, resendable: true)
    }

    /// `timeline.thread {post_id, after?, limit?}`: ancestors (root first), the post, direct replies oldest first.
    public func thread(
        _ postId: Int64, after: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> Ops.TimelineThread.Result {
        try await send(Ops.TimelineThread.self, .init(postId: postId, after: after, limit: limit), resendable: true)
    }

    /// `timeline.mentions {before? | after?, limit?}`.
    public func mentionsTimeline(
        before: Int64? = nil, after: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> PostPage {
        try await send(Ops.TimelineMentions.self, .init(before: before, after: after, limit: limit), resendable: true)
    }

    /// `timeline.likes {user_id?, before? (like id), limit?}`: the posts a user liked, newest like first.
    public func likesTimeline(
        userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> Page<SocialPost> {
        try await send(Ops.TimelineLikes.self, .init(userId: userId, before: before, limit: limit), resendable: true)
    }

    /// `timeline.hashtag {tag (without #), before? | after?, limit?}`.
    public func hashtagTimeline(
        _ tag: String, before: Int64? = nil, after: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> PostPage {
        try await send(
            Ops.TimelineHashtag.self, .init(tag: tag, before: before, after: after, limit: limit), resendable: true)
    }
}

/// Social notifications and live pages.
extension SwitchboardClient {
    /// `notifications.list {before?, limit?}`: grouped, newest first, with the unread count.
    public func socialNotifications(
        before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> SocialNotificationsPage {
        try await send(Ops.NotificationsList.self, .init(before: before, limit: limit), resendable: true)
    }

    /// `notifications.unread`.
    public func socialUnread() async throws(SwitchboardClientError) -> Int64 {
        try await send(Ops.NotificationsUnread.self, Empty(), resendable: true).unread
    }

    /// `notifications.read {up_to?}` (default: the newest); returns what stays unread.
    public func readSocialNotifications(upTo: Int64? = nil) async throws(SwitchboardClientError) -> Int64 {
        try await send(Ops.NotificationsRead.self, .init(upTo: upTo), resendable: true).unread
    }

    /// `live.subscribe {streams, since?}`: `home`, `user:<id>`, `thread:<post id>`, `notifications`; with `since`
    /// (the newest seq seen) the reply carries what was missed.
    /// - Throws: `.server(ServerError)`: `too_many`, `not_found`, `forbidden`, `bad_request`.
    public func subscribeLive(
        _ streams: [String], since: Int64? = nil
    ) async throws(SwitchboardClientError) -> LiveSubscribeResult {
        try await send(Ops.LiveSubscribe.self, .init(streams: streams, since: since), resendable: true)
    }

    /// `live.unsubscribe {streams}`: returns the streams left.
    public func unsubscribeLive(_ streams: [String]) async throws(SwitchboardClientError) -> [String] {
        try await send(Ops.LiveUnsubscribe.self, .init(streams: streams), resendable: true).subscribed
    }
}
