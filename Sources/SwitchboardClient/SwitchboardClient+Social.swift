//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardProtocol

// The social layer (docs/protocol.md, "Social"): handles, profiles, follows, blocks and mutes, posts, timelines,
// likes and reposts, social notifications and live pages. Results decode into `SocialAPI` (SocialModels.swift);
// social events arrive on `events` as `.other(RawEvent)`: `SocialAPI.Event(raw)` reads them.
//
// Resending after a lost reply: reads and the idempotent writes (follow, like, block, ... answer the current state
// when repeated; `post.repost` answers the existing repost) are resent, and so is `post.create`, which always carries
// a `client_id` (a fresh UUID unless the caller gives one): the server answers a resend with the post it already
// made, so a post whose reply was lost is stored once (docs/protocol.md, `post.create`).

/// Handles, profiles, follows, blocks and mutes.
extension SwitchboardClient {
    /// `handle.set {handle}` (without the `@`).
    /// - Throws: `.server(ServerError)`: `handle_taken`, `bad_request` (invalid or reserved).
    public func setHandle(_ handle: String) async throws(SwitchboardClientError) -> SocialAPI.Profile {
        try await social("handle.set", HandleParameters(handle: handle), ProfileBox.self, resendable: true).profile
    }

    /// `handle.check {handle}`: whether it is free (else why: `invalid`, `reserved`, `taken`).
    public func checkHandle(_ handle: String) async throws(SwitchboardClientError) -> SocialAPI.HandleCheck {
        try await social("handle.check", HandleParameters(handle: handle), SocialAPI.HandleCheck.self, resendable: true)
    }

    /// `profile.get {user_id}` with the social fields (stats, relationship).
    /// - Throws: `.server(ServerError)`: `not_found`.
    public func socialProfile(userId: Int64) async throws(SwitchboardClientError) -> SocialAPI.Profile {
        try await social("profile.get", Target(userId: userId), ProfileBox.self, resendable: true).profile
    }

    /// `profile.get {handle}` (without the `@`).
    public func socialProfile(handle: String) async throws(SwitchboardClientError) -> SocialAPI.Profile {
        try await social("profile.get", Target(handle: handle), ProfileBox.self, resendable: true).profile
    }

    /// `profile.update` of the social fields: bio (≤160 characters), protected, DM policy (`friends`, `mutuals`,
    /// `anyone`); nil leaves a field as it is.
    public func updateSocialProfile(
        bio: String? = nil, protected: Bool? = nil, dmPolicy: String? = nil
    ) async throws(SwitchboardClientError) -> SocialAPI.Profile {
        try await social(
            "profile.update", ProfileUpdate(bio: bio, protected: protected, dmPolicy: dmPolicy), ProfileBox.self, resendable: true
        ).profile
    }

    /// `follow {user_id}`: `active`, or `pending` for a protected account (a request it approves).
    /// - Throws: `.server(ServerError)`: `handle_required`, `not_found`, `bad_request` (yourself), `rate_limited`,
    ///   `too_many`.
    public func follow(_ userId: Int64) async throws(SwitchboardClientError) -> SocialAPI.FollowResult {
        try await social("follow", Target(userId: userId), SocialAPI.FollowResult.self, resendable: true)
    }

    /// `unfollow {user_id}` (also withdraws a pending request).
    public func unfollow(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("unfollow", Target(userId: userId), Empty.self, resendable: true)
    }

    /// `follow.requests {before?, limit?}`: incoming pending requests, newest first.
    public func followRequests(before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError) -> SocialAPI.FollowRequests {
        try await social("follow.requests", Paging(before: before, limit: limit), SocialAPI.FollowRequests.self, resendable: true)
    }

    /// `follow.approve {user_id}` (the requester).
    public func approveFollow(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("follow.approve", Target(userId: userId), Empty.self, resendable: true)
    }

    /// `follow.deny {user_id}` (the requester).
    public func denyFollow(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("follow.deny", Target(userId: userId), Empty.self, resendable: true)
    }

    /// `followers {user_id?, before?, limit?}` (default: yours), newest follow first.
    public func followers(of userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError)
        -> SocialAPI.UserPage
    {
        try await social("followers", Paging(userId: userId, before: before, limit: limit), SocialAPI.UserPage.self, resendable: true)
    }

    /// `following {user_id?, before?, limit?}` (default: yours), newest follow first.
    public func following(of userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError)
        -> SocialAPI.UserPage
    {
        try await social("following", Paging(userId: userId, before: before, limit: limit), SocialAPI.UserPage.self, resendable: true)
    }

    /// `follower.remove {user_id}`.
    public func removeFollower(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("follower.remove", Target(userId: userId), Empty.self, resendable: true)
    }

    /// `block {user_id}` (removes follows both ways).
    public func block(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("block", Target(userId: userId), Empty.self, resendable: true)
    }

    /// `unblock {user_id}`.
    public func unblock(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("unblock", Target(userId: userId), Empty.self, resendable: true)
    }

    /// `mute {user_id}`.
    public func mute(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("mute", Target(userId: userId), Empty.self, resendable: true)
    }

    /// `unmute {user_id}`.
    public func unmute(_ userId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("unmute", Target(userId: userId), Empty.self, resendable: true)
    }

    /// `blocks.list {before?, limit?}`.
    public func blockedUsers(before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError) -> SocialAPI.UserPage {
        try await social("blocks.list", Paging(before: before, limit: limit), SocialAPI.UserPage.self, resendable: true)
    }

    /// `mutes.list {before?, limit?}`.
    public func mutedUsers(before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError) -> SocialAPI.UserPage {
        try await social("mutes.list", Paging(before: before, limit: limit), SocialAPI.UserPage.self, resendable: true)
    }
}

/// Posts, likes, reposts and timelines.
extension SwitchboardClient {
    /// `post.create {text?, reply_to?, voice_clip_id?, client_id}`: a post, or a reply to `replyTo`. Resent after a
    /// reconnect that lost the reply, with the same `client_id` (a fresh UUID unless given), so it is stored once.
    /// - Throws: `.server(ServerError)`: `handle_required`, `invalid_text`, `not_found`, `rate_limited`.
    /// `photoIds`: 0-4 of your photos (`POST /photos`), in order; with photos the text may be empty.
    public func publishPost(
        _ text: String?, replyTo: Int64? = nil, voiceClipId: Int64? = nil, clientId: String? = nil, photoIds: [Int64]? = nil
    ) async throws(SwitchboardClientError) -> SocialAPI.Post {
        try await social(
            "post.create",
            PostCreate(text: text, replyTo: replyTo, voiceClipId: voiceClipId, clientId: clientId ?? UUID().uuidString, photoIds: photoIds),
            PostBox.self, resendable: true
        ).post
    }

    /// `post.get {post_id}`.
    public func socialPost(_ postId: Int64) async throws(SwitchboardClientError) -> SocialAPI.Post {
        try await social("post.get", PostTarget(postId: postId), PostBox.self, resendable: true).post
    }

    /// `post.delete {post_id}` (own post or repost; administrators any).
    /// - Throws: `.server(ServerError)`: `not_found`, `forbidden`.
    public func deletePost(_ postId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("post.delete", PostTarget(postId: postId), Empty.self, resendable: true)
    }

    /// `post.like {post_id}` (a repost's id likes its original).
    public func like(_ postId: Int64) async throws(SwitchboardClientError) -> SocialAPI.LikeResult {
        try await social("post.like", PostTarget(postId: postId), SocialAPI.LikeResult.self, resendable: true)
    }

    /// `post.unlike {post_id}`.
    public func unlike(_ postId: Int64) async throws(SwitchboardClientError) -> SocialAPI.LikeResult {
        try await social("post.unlike", PostTarget(postId: postId), SocialAPI.LikeResult.self, resendable: true)
    }

    /// `post.repost {post_id}`: the repost (the existing one when repeated).
    /// - Throws: `.server(ServerError)`: `forbidden` (a protected author's post), `not_found`, `rate_limited`.
    public func repost(_ postId: Int64) async throws(SwitchboardClientError) -> SocialAPI.Post {
        try await social("post.repost", PostTarget(postId: postId), PostBox.self, resendable: true).post
    }

    /// `post.unrepost {post_id}` (the original's id).
    public func unrepost(_ postId: Int64) async throws(SwitchboardClientError) {
        _ = try await social("post.unrepost", PostTarget(postId: postId), Empty.self, resendable: true)
    }

    /// `post.likers {post_id, before?, limit?}`, newest like first.
    public func likers(of postId: Int64, before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError) -> SocialAPI.UserPage {
        try await social("post.likers", PostPaging(postId: postId, before: before, limit: limit), SocialAPI.UserPage.self, resendable: true)
    }

    /// `timeline.home {before? | after?, limit?}`: own posts and the posts and reposts of active followees.
    public func homeTimeline(before: Int64? = nil, after: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError)
        -> SocialAPI.Page
    {
        try await social("timeline.home", Paging(before: before, after: after, limit: limit), SocialAPI.Page.self, resendable: true)
    }

    /// `timeline.user {user_id | handle, replies?, before? | after?, limit?}`: the page and the author's profile.
    /// - Throws: `.server(ServerError)`: `not_found`, `forbidden` (a protected account, not followed).
    public func userTimeline(
        userId: Int64? = nil, handle: String? = nil, replies: Bool? = nil, before: Int64? = nil, after: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> SocialAPI.Page {
        try await social(
            "timeline.user",
            Paging(userId: userId, handle: handle, replies: replies, before: before, after: after, limit: limit),
            SocialAPI.Page.self, resendable: true)
    }

    /// `timeline.thread {post_id, after?, limit?}`: ancestors (root first), the post, direct replies oldest first.
    public func thread(_ postId: Int64, after: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError) -> SocialAPI.Thread {
        try await social("timeline.thread", PostPaging(postId: postId, after: after, limit: limit), SocialAPI.Thread.self, resendable: true)
    }

    /// `timeline.mentions {before? | after?, limit?}`.
    public func mentionsTimeline(before: Int64? = nil, after: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError)
        -> SocialAPI.Page
    {
        try await social("timeline.mentions", Paging(before: before, after: after, limit: limit), SocialAPI.Page.self, resendable: true)
    }

    /// `timeline.likes {user_id?, before? (like id), limit?}`: the posts a user liked, newest like first.
    public func likesTimeline(userId: Int64? = nil, before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError)
        -> SocialAPI.Page
    {
        try await social("timeline.likes", Paging(userId: userId, before: before, limit: limit), SocialAPI.Page.self, resendable: true)
    }

    /// `timeline.hashtag {tag (without #), before? | after?, limit?}`.
    public func hashtagTimeline(_ tag: String, before: Int64? = nil, after: Int64? = nil, limit: Int? = nil) async throws(
        SwitchboardClientError
    ) -> SocialAPI.Page {
        try await social("timeline.hashtag", Paging(tag: tag, before: before, after: after, limit: limit), SocialAPI.Page.self, resendable: true)
    }
}

/// Social notifications and live pages.
extension SwitchboardClient {
    /// `notifications.list {before?, limit?}`: grouped, newest first, with the unread count.
    public func socialNotifications(before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError) -> SocialAPI.Notifications {
        try await social("notifications.list", Paging(before: before, limit: limit), SocialAPI.Notifications.self, resendable: true)
    }

    /// `notifications.unread`.
    public func socialUnread() async throws(SwitchboardClientError) -> Int64 {
        try await social("notifications.unread", Empty(), SocialAPI.Unread.self, resendable: true).unread
    }

    /// `notifications.read {up_to?}` (default: the newest); returns what stays unread.
    public func readSocialNotifications(upTo: Int64? = nil) async throws(SwitchboardClientError) -> Int64 {
        try await social("notifications.read", ReadParameters(upTo: upTo), SocialAPI.Unread.self, resendable: true).unread
    }

    /// `live.subscribe {streams, since?}`: `home`, `user:<id>`, `thread:<post id>`, `notifications`; with `since`
    /// (the newest seq seen) the reply carries what was missed.
    /// - Throws: `.server(ServerError)`: `too_many`, `not_found`, `forbidden`, `bad_request`.
    public func subscribeLive(_ streams: [String], since: Int64? = nil) async throws(SwitchboardClientError) -> SocialAPI.Subscription {
        try await social("live.subscribe", LiveStreams(streams: streams, since: since), SocialAPI.Subscription.self, resendable: true)
    }

    /// `live.unsubscribe {streams}`: returns the streams left.
    public func unsubscribeLive(_ streams: [String]) async throws(SwitchboardClientError) -> [String] {
        try await social("live.unsubscribe", LiveStreams(streams: streams, since: nil), SocialAPI.Subscription.self, resendable: true).subscribed
    }
}

// MARK: - Parameters

extension SwitchboardClient {
    fileprivate func social<Params: Encodable & Sendable, Result: Decodable>(
        _ op: String, _ params: Params, _ result: Result.Type, resendable: Bool
    ) async throws(SwitchboardClientError) -> Result {
        try await request(op: op, params: params, as: result, resendable: resendable)
    }
}

private struct HandleParameters: Encodable, Sendable { var handle: String }
private struct ProfileBox: Decodable { var profile: SocialAPI.Profile }
private struct PostBox: Decodable { var post: SocialAPI.Post }
private struct PostTarget: Encodable, Sendable { var postId: Int64 }
private struct ReadParameters: Encodable, Sendable { var upTo: Int64? }
private struct LiveStreams: Encodable, Sendable {
    var streams: [String]
    var since: Int64?
}

private struct Target: Encodable, Sendable {
    var userId: Int64?
    var handle: String?
}

private struct ProfileUpdate: Encodable, Sendable {
    var bio: String?
    var protected: Bool?
    var dmPolicy: String?
}

private struct PostCreate: Encodable, Sendable {
    var text: String?
    var replyTo: Int64?
    var voiceClipId: Int64?
    var clientId: String?
    var photoIds: [Int64]?
}

private struct PostPaging: Encodable, Sendable {
    var postId: Int64
    var before: Int64? = nil
    var after: Int64? = nil
    var limit: Int? = nil
}

private struct Paging: Encodable, Sendable {
    var userId: Int64? = nil
    var handle: String? = nil
    var tag: String? = nil
    var replies: Bool? = nil
    var before: Int64? = nil
    var after: Int64? = nil
    var limit: Int? = nil
}
