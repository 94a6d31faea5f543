//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The messaging objects as a client decodes them (docs/protocol.md, "Messaging"). Property names are
// camelCase; the wire's snake_case keys are converted when decoding.

public import SwitchboardProtocol

// The message, conversation and acknowledgement types are the protocol module's, shared with the server;
// these names are the client's vocabulary for them.

/// What a system message says.
public typealias SystemNotice = SystemEvent
/// A voice message's clip: `{voice_id, duration_ms, waveform, size, mime_type}`.
public typealias VoiceNote = VoiceAttachment
/// A message: `{id, conversation_id, seq, sender_id, kind, text?, voice?, system?, client_id?, ts, deleted?}`.
public typealias Message = ChatMessage
/// A member of a conversation.
public typealias Member = ConversationMember
/// A conversation as listed.
public typealias Conversation = ConversationSummary
/// The acknowledgement of `messages.send`: the message is stored.
public typealias SendAcknowledgement = SendAck

/// A page of `messages.history`, newest first.
public typealias HistoryPage = HistoryResult

/// The reply to `sync`, after its catch-up: each conversation's last seq and the number of messages sent.
public typealias SyncSummary = SyncResult

/// A user's presence.
public struct PresenceUpdate: Codable, Sendable, Equatable {
    public var userId: Int64
    /// `online`, `away` or `offline`.
    public var status: String
    /// With `offline`: when the user was last seen.
    public var lastSeen: String?
}

/// `typing`: a member is typing or recording (or stopped).
public struct TypingUpdate: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var userId: Int64
    /// `typing` or `recording`.
    public var activity: String
    public var active: Bool
    /// When it expires unless refreshed.
    public var expiresInMs: Int64
}

// MARK: - Small results

/// Only what the baseline needs from `conversations.list`.
struct BaselineResult: Decodable {
    struct Entry: Decodable {
        var conversationId: Int64
        var lastSeq: Int64
    }

    var conversations: [Entry]
}

struct PresenceSnapshot: Decodable {
    var presence: [PresenceUpdate]
}
