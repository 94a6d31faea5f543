//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Where a message goes: a conversation, or a friend (their direct conversation, created on first use).
public enum MessageTarget: Sendable, Equatable {
    case conversation(Int64)
    case user(Int64)
}

/// `online` or `away` (`offline` is the server's to say).
public enum Availability: String, Sendable {
    case online
    case away
}

/// What a member is doing, for `typing`.
public enum TypingActivity: String, Sendable {
    case typing
    case recording
}

// Typed methods for the messaging ops (docs/protocol.md, "Messaging").
extension SwitchboardClient {
    // MARK: Conversations

    /// `conversations.list`: latest activity first.
    public func conversations() async throws(SwitchboardClientError) -> [Conversation] {
        try await request(op: "conversations.list", as: ConversationsResult.self).conversations
    }

    /// `conversations.get`.
    public func conversation(_ conversationId: Int64) async throws(SwitchboardClientError) -> Conversation {
        try await request(
            op: "conversations.get", params: ConversationParams(conversationId: conversationId),
            as: ConversationResult.self
        ).conversation
    }

    /// `conversations.direct`: the one-to-one conversation with a friend (created if needed).
    public func directConversation(with userId: Int64) async throws(SwitchboardClientError) -> Conversation {
        try await request(op: "conversations.direct", params: UserParams(userId: userId), as: ConversationResult.self)
            .conversation
    }

    /// `groups.create`: a group with at least two friends.
    public func createGroup(name: String? = nil, memberIds: [Int64]) async throws(SwitchboardClientError) -> Conversation {
        try await request(
            op: "groups.create", params: CreateGroupParams(name: name, memberIds: memberIds), as: ConversationResult.self
        ).conversation
    }

    /// `groups.add`: returns the system message `member_added`.
    @discardableResult
    public func addToGroup(_ conversationId: Int64, userId: Int64) async throws(SwitchboardClientError) -> Message {
        try await request(
            op: "groups.add", params: MemberParams(conversationId: conversationId, userId: userId),
            as: MessageResult.self
        ).message
    }

    /// `groups.leave`: returns the system message `member_left`.
    @discardableResult
    public func leaveGroup(_ conversationId: Int64) async throws(SwitchboardClientError) -> Message {
        try await request(
            op: "groups.leave", params: ConversationParams(conversationId: conversationId), as: MessageResult.self
        ).message
    }

    /// `groups.rename`: returns the system message `renamed`.
    @discardableResult
    public func renameGroup(_ conversationId: Int64, name: String) async throws(SwitchboardClientError) -> Message {
        try await request(
            op: "groups.rename", params: RenameParams(conversationId: conversationId, name: name),
            as: MessageResult.self
        ).message
    }

    // MARK: Messages

    /// `messages.send` with text. Always carries a `client_id` (a new UUID unless given), so the client resends
    /// it after a reconnect and the server stores it once.
    /// - Returns: the acknowledgement (the message is stored; its seq and server time).
    @discardableResult
    public func sendText(
        _ text: String, to target: MessageTarget, clientId: String? = nil, timeout: Double? = nil
    ) async throws(SwitchboardClientError) -> SendAcknowledgement {
        try await request(
            op: "messages.send", params: SendParams(target: target, clientId: clientId ?? UUID().uuidString, text: text),
            as: SendAcknowledgement.self, timeout: timeout, resendable: true)
    }

    /// `messages.send` of an uploaded voice clip (`POST /voice`), with a `client_id` as `sendText`.
    @discardableResult
    public func sendVoice(
        voiceId: Int64, to target: MessageTarget, clientId: String? = nil, timeout: Double? = nil
    ) async throws(SwitchboardClientError) -> SendAcknowledgement {
        try await request(
            op: "messages.send", params: SendParams(target: target, clientId: clientId ?? UUID().uuidString, voiceId: voiceId),
            as: SendAcknowledgement.self, timeout: timeout, resendable: true)
    }

    /// `messages.history`: a page, newest first, of messages before `before` (default: the newest).
    public func history(_ conversationId: Int64, before: Int64? = nil, limit: Int? = nil) async throws(SwitchboardClientError)
        -> HistoryPage
    {
        try await request(
            op: "messages.history", params: HistoryParams(conversationId: conversationId, before: before, limit: limit),
            as: HistoryPage.self)
    }

    /// `messages.delete`: deletes an own message for everyone; returns the tombstone (system `message_deleted`).
    @discardableResult
    public func deleteMessage(_ messageId: Int64) async throws(SwitchboardClientError) -> Message {
        try await request(op: "messages.delete", params: MessageIDParams(messageId: messageId), as: MessageResult.self)
            .message
    }

    /// `messages.hide`: hides a message from my history and catch-up.
    public func hideMessage(_ messageId: Int64) async throws(SwitchboardClientError) {
        try await request(op: "messages.hide", params: MessageIDParams(messageId: messageId))
    }

    /// `conversations.read`: moves my read marker; returns where it is now.
    @discardableResult
    public func markRead(_ conversationId: Int64, seq: Int64) async throws(SwitchboardClientError) -> Int64 {
        try await request(
            op: "conversations.read", params: ReadParams(conversationId: conversationId, seq: seq), as: ReadResult.self
        ).readSeq
    }

    /// `sync {since}`: sends as `message` events every message after `since` (conversations not listed: from
    /// the joining), then returns. The client resumes by itself after reconnects; this is for a catch-up on
    /// demand (`since` defaults to the client's `resumePoints`).
    @discardableResult
    public func sync(since: [Int64: Int64]? = nil, timeout: Double? = nil) async throws(SwitchboardClientError) -> SyncSummary {
        let points: [Int64: Int64]
        if let since {
            points = since
        } else {
            points = await resumePoints
        }
        return try await request(op: "sync", params: SyncParams(since: points), as: SyncSummary.self, timeout: timeout)
    }

    // MARK: Presence and typing

    /// `presence.set`.
    public func setPresence(_ status: Availability) async throws(SwitchboardClientError) {
        try await request(op: "presence.set", params: PresenceParams(status: status.rawValue))
    }

    /// `typing`: starts (or refreshes) or stops typing or recording in a conversation.
    public func setTyping(
        _ conversationId: Int64, activity: TypingActivity = .typing, active: Bool = true
    ) async throws(SwitchboardClientError) {
        try await request(
            op: "typing",
            params: TypingParams(conversationId: conversationId, activity: activity.rawValue, active: active))
    }
}

// MARK: - Parameters (camelCase here, snake_case on the wire)

struct ConversationParams: Encodable, Sendable {
    var conversationId: Int64
}

struct UserParams: Encodable, Sendable {
    var userId: Int64
}

struct MemberParams: Encodable, Sendable {
    var conversationId: Int64
    var userId: Int64
}

struct CreateGroupParams: Encodable, Sendable {
    var name: String?
    var memberIds: [Int64]
}

struct RenameParams: Encodable, Sendable {
    var conversationId: Int64
    var name: String
}

struct SendParams: Encodable, Sendable {
    var conversationId: Int64?
    var userId: Int64?
    var clientId: String
    var text: String?
    var voiceId: Int64?

    init(target: MessageTarget, clientId: String, text: String? = nil, voiceId: Int64? = nil) {
        switch target {
        case .conversation(let c):
            conversationId = c
            userId = nil
        case .user(let u):
            conversationId = nil
            userId = u
        }
        self.clientId = clientId
        self.text = text
        self.voiceId = voiceId
    }
}

struct HistoryParams: Encodable, Sendable {
    var conversationId: Int64
    var before: Int64?
    var limit: Int?
}

struct MessageIDParams: Encodable, Sendable {
    var messageId: Int64
}

struct ReadParams: Encodable, Sendable {
    var conversationId: Int64
    var seq: Int64
}

struct PresenceParams: Encodable, Sendable {
    var status: String
}

struct TypingParams: Encodable, Sendable {
    var conversationId: Int64
    var activity: String
    var active: Bool
}
