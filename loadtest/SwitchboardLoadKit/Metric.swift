//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The names of the measured operations.
public enum Metric {
    /// `messages.send` to its acknowledgement (the message is stored).
    public static let sendToAck = "send_to_ack"
    /// `messages.send` to the `message` event at each online recipient (live deliveries only).
    public static let sendToDelivery = "send_to_delivery"
    /// `messages.send` to a message that reached a dropped client through its resume (reported, not judged).
    public static let recoveredDelivery = "recovered_delivery"
    /// `messages.history` (a page of 10) to its reply.
    public static let historyPage = "history_page"
    /// `reactions.set` (on a recently sent message) to its reply.
    public static let reactionSet = "reaction_set"
    /// `messages.pin` or `messages.unpin` (of the latest message of a conversation, in turn) to its reply.
    public static let pinToggle = "pin_toggle"
    /// `login` (one Argon2id verification and a session) to its reply.
    public static let login = "login"
    /// `call.invite` to `call.ring` at the callee.
    public static let inviteToRing = "invite_to_ring"
    /// `call.decline` to `call.ended` (declined) at the caller.
    public static let declineToCallerTold = "decline_to_caller_told"
    /// `call.accept` to `call.accepted` at the caller.
    public static let acceptToCallerTold = "accept_to_caller_told"
    /// `call.hangup` to `call.ended` at the other party.
    public static let hangupToPeerTold = "hangup_to_peer_told"
    /// `call.signal` (an ICE candidate) to `call.signal` at the other party.
    public static let signalRelay = "signal_relay"
    /// The ring deadline (invite sent + ring timeout) to `call.ended` (timeout) at the caller.
    public static let timeoutToCallerTold = "timeout_to_caller_told"
    /// `POST /voice` to its 201 (transcoded and stored).
    public static let upload = "upload"
    /// The start of `POST /voice` to the voice message at its recipient.
    public static let uploadToDelivery = "upload_to_delivery"
    /// `typing` to the `typing` event at the other member.
    public static let typingToPeer = "typing_to_peer"
    /// `presence.set` to the `presence` event at a friend.
    public static let presenceToFriend = "presence_to_friend"
    /// `presence.set` by a client that lost its server to the kill switch, sent within the kill's attribution
    /// window, to the event at a friend (reported, not judged): until the cluster expires the dead node's
    /// devices (heartbeat TTL), the user's stale device there still counts toward its presence.
    public static let presenceAfterKill = "presence_to_friend_after_kill"
    /// `authenticate` with a stored token (idle mode and reconnects) to its reply.
    public static let authenticate = "authenticate"
    /// `report.create` (a message sent in this run, by a member of its conversation) to its reply.
    public static let reportCreate = "report_create"
    /// `account.export` to the `account.export_ready` event (state `ready`) at the requesting client.
    public static let exportReady = "export_ready"
    /// `GET /export/{id}` of a ready export to its last byte.
    public static let exportDownload = "export_download"
    /// `account.delete` (of a user made for it) to the close 4005 of its connection, after `account.deleted`.
    public static let deleteToClosed = "delete_to_closed"

    /// `events.create` (an administrator publishing to the run's community) to the `community.notification` at each
    /// online member (the send time travels in the event's title).
    public static let eventToNotification = "event_to_notification"
    /// `communities.list` (a first page) to its reply.
    public static let communitiesList = "communities_list"
    /// `calendar.get` (range month) to its reply.
    public static let calendarMonth = "calendar_month"

    /// `post.create` (a post of the mix) to its reply.
    public static let postCreate = "post_create"
    /// `post.create` to the `post.new` event at each live home page that shows the post (the author's and its
    /// followers'; the send time travels in the post's text).
    public static let postToLive = "post_to_live"
    /// `timeline.home` (a first page of 20) to its reply.
    public static let timelineHome = "timeline_home"
    /// `post.like` to its reply.
    public static let postLike = "post_like"
    /// `follow` or `unfollow` to its reply.
    public static let follow = "follow"

    /// The order of the report's rows.
    public static let order: [String] = [
        sendToAck, sendToDelivery, recoveredDelivery, historyPage, reactionSet, pinToggle, login, authenticate,
        typingToPeer,
        presenceToFriend, presenceAfterKill, inviteToRing, acceptToCallerTold, signalRelay, hangupToPeerTold,
        declineToCallerTold, timeoutToCallerTold, upload, uploadToDelivery, reportCreate, exportReady, exportDownload,
        deleteToClosed, eventToNotification, communitiesList, calendarMonth, postCreate, postToLive, timelineHome,
        postLike, follow,
    ]
}
