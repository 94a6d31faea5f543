//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol

// Typed methods for the messaging ops (docs/protocol.md, "Messaging").
extension SwitchboardClient {
    // MARK: Conversations

    /// `conversations.list`: latest activity first.
    public func conversations() async throws(SwitchboardClientError) -> [Conversation] {
        try await send(Ops.ConversationsList.self, Empty()).conversations
    }

    /// `conversations.get`.
    public func conversation(_ conversationId: Int64) async throws(SwitchboardClientError) -> Conversation {
        try await send(Ops.ConversationsGet.self, .init(conversationId: conversationId)).conversation
    }

    /// `conversations.direct`: the one-to-one conversation with a friend (created if needed).
    public func directConversation(with userId: Int64) async throws(SwitchboardClientError) -> Conversation {
        try await send(Ops.ConversationsDirect.self, .init(userId: userId)).conversation
    }

    /// `groups.create`: a group with at least two friends.
    public func createGroup(name: String? = nil, memberIds: [Int64]) async throws(SwitchboardClientError)
        -> Conversation
    {
        try await send(Ops.GroupsCreate.self, .init(name: name, memberIds: memberIds)).conversation
    }

    /// `groups.add`: returns the system message `member_added`.
    @discardableResult
    public func addToGroup(_ conversationId: Int64, userId: Int64) async throws(SwitchboardClientError) -> Message {
        try await send(Ops.GroupsAdd.self, .init(conversationId: conversationId, userId: userId)).message
    }

    /// `groups.leave`: returns the system message `member_left`.
    @discardableResult
    public func leaveGroup(_ conversationId: Int64) async throws(SwitchboardClientError) -> Message {
        try await send(Ops.GroupsLeave.self, .init(conversationId: conversationId)).message
    }

    /// `groups.rename`: returns the system message `renamed`.
    @discardableResult
    public func renameGroup(_ conversationId: Int64, name: String) async throws(SwitchboardClientError) -> Message {
        try await send(Ops.GroupsRename.self, .init(conversationId: conversationId, name: name)).message
    }

    // MARK: Messages

    /// `messages.send` with text. Always carries a `client_id` (a new UUID unless given), so the client resends
    /// it after a reconnect and the server stores it once.
    /// - Returns: the acknowledgement (the message is stored; its seq and server time).
    @discardableResult
    public func sendText(
        _ text: String, to target: MessageTarget, clientId: String? = nil, timeout: Double? = nil
    ) async throws(SwitchboardClientError) -> SendAcknowledgement {
        try await send(
            Ops.MessagesSend.self, .init(target: target, clientId: clientId ?? UUID().uuidString, text: text),
            timeout: timeout,
            resendable: true)
    }

    /// `messages.send` of an uploaded voice clip (`POST /voice`), with a `client_id` as `sendText`.
    @discardableResult
    public func sendVoice(
        voiceId: Int64, to target: MessageTarget, clientId: String? = nil, timeout: Double? = nil
    ) async throws(SwitchboardClientError) -> SendAcknowledgement {
        try await send(
            Ops.MessagesSend.self, .init(target: target, clientId: clientId ?? UUID().uuidString, voiceId: voiceId),
            timeout: timeout, resendable: true)
    }

    /// `messages.history`: a page, newest first, of messages before `before` (default: the newest).
    public func history(_ conversationId: Int64, before: Int64? = nil, limit: Int? = nil)
        async throws(SwitchboardClientError)
        -> HistoryPage
    {
        try await send(Ops.MessagesHistory.self, .init(conversationId: conversationId, before: before, limit: limit))
    }

    /// `messages.delete`: deletes an own message for everyone; returns the tombstone (system `message_deleted`).
    @discardableResult
    public func deleteMessage(_ messageId: Int64) async throws(SwitchboardClientError) -> Message {
        try await send(Ops.MessagesDelete.self, .init(messageId: messageId)).message
    }

    /// `messages.hide`: hides a message from my history and catch-up.
    public func hideMessage(_ messageId: Int64) async throws(SwitchboardClientError) {
        try await send(Ops.MessagesHide.self, .init(messageId: messageId))
    }

    /// `reactions.set`: sets my reaction to a message (replacing my earlier one), or removes it (`active`
    /// false); returns the message's counts.
    @discardableResult
    public func react(to messageId: Int64, emoji: String, active: Bool = true) async throws(SwitchboardClientError)
        -> ReactionsResult
    {
        try await send(Ops.ReactionsSet.self, .init(messageId: messageId, emoji: emoji, active: active))
    }

    /// `messages.pin`: pins a message I see to its conversation; pinning a pinned message answers its pin (safe to
    /// resend).
    @discardableResult
    public func pin(_ messageId: Int64) async throws(SwitchboardClientError) -> PinResult {
        try await send(Ops.MessagesPin.self, .init(messageId: messageId))
    }

    /// `messages.unpin`: unpins a message; unpinning one that is not pinned changes nothing.
    @discardableResult
    public func unpin(_ messageId: Int64) async throws(SwitchboardClientError) -> UnpinResult {
        try await send(Ops.MessagesUnpin.self, .init(messageId: messageId))
    }

    /// `conversations.pins`: the pinned messages of a conversation of mine, latest pin first.
    public func pins(_ conversationId: Int64) async throws(SwitchboardClientError) -> PinsResult {
        try await send(Ops.ConversationsPins.self, .init(conversationId: conversationId))
    }

    /// `conversations.read`: moves my read marker; returns where it is now.
    @discardableResult
    public func markRead(_ conversationId: Int64, seq: Int64) async throws(SwitchboardClientError) -> Int64 {
        try await send(Ops.ConversationsRead.self, .init(conversationId: conversationId, seq: seq)).readSeq
    }

    /// `sync {since}`: sends as `message` events every message after `since` (conversations not listed: from
    /// the joining), then returns. The client resumes by itself after reconnects; this is for a catch-up on
    /// demand (`since` defaults to the client's `resumePoints`).
    @discardableResult
    public func sync(since: [Int64: Int64]? = nil, timeout: Double? = nil) async throws(SwitchboardClientError)
        -> SyncSummary
    {
        let points: [Int64: Int64]
        if let since {
            points = since
        } else {
            points = await resumePoints
        }
        return try await send(Ops.Sync.self, Ops.Sync.Parameters(since: points), timeout: timeout)
    }

    // MARK: Presence and typing

    /// `presence.set`.
    public func setPresence(_ status: Availability) async throws(SwitchboardClientError) {
        try await send(Ops.PresenceSet.self, .init(status: status.rawValue))
    }

    /// `typing`: starts (or refreshes) or stops typing or recording in a conversation.
    public func setTyping(
        _ conversationId: Int64, activity: TypingActivity = .typing, active: Bool = true
    ) async throws(SwitchboardClientError) {
        try await send(
            Ops.Typing.self, .init(conversationId: conversationId, activity: activity.rawValue, active: active))
    }
}

// MARK: - Parameters

extension Ops.MessagesSend.Parameters {
    init(target: MessageTarget, clientId: String, text: String? = nil, voiceId: Int64? = nil) {
        switch target {
        case .conversation(let c): self.init(conversationId: c, clientId: clientId, text: text, voiceId: voiceId)
        case .user(let u): self.init(userId: u, clientId: clientId, text: text, voiceId: voiceId)
        }
    }
}
