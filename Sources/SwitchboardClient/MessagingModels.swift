//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The messaging objects as a client decodes them (docs/protocol.md, "Messaging"). Property names are
// camelCase; the wire's snake_case keys are converted when decoding.

/// What a system message says.
public struct SystemNotice: Codable, Sendable, Equatable {
    /// `created`, `member_added`, `member_left`, `renamed`, `message_deleted` or `call`.
    public var event: String
    /// Who did it.
    public var actorId: Int64?
    /// The users it concerns (`created`, `member_added`, `member_left`).
    public var userIds: [Int64]?
    /// The group's name (`created`, `renamed`).
    public var name: String?
    /// The deleted message (`message_deleted`).
    public var messageId: Int64?
    /// Call records: the call's id, `voice` or `video`, the outcome and the duration of an answered call.
    public var callId: String?
    public var media: String?
    public var outcome: String?
    public var durationMs: Int64?
}

/// The audio of a voice message (fetched over HTTP as `GET /voice/{voiceId}`).
public struct VoiceNote: Codable, Sendable, Equatable {
    public var voiceId: Int64
    public var durationMs: Int64
    /// 100 values 0-31.
    public var waveform: [Int]
    public var size: Int64
    public var mimeType: String
}

/// A message: `{id, conversation_id, seq, sender_id, kind, text?, voice?, system?, client_id?, ts, deleted?}`.
public struct Message: Codable, Sendable, Equatable {
    /// `text`, `voice` or `system`.
    public enum Kind: String, Codable, Sendable {
        case text, voice, system
    }

    public var id: Int64
    public var conversationId: Int64
    /// The position in the conversation: 1, 2, 3, ... without gaps.
    public var seq: Int64
    /// Nil for system messages.
    public var senderId: Int64?
    public var kind: Kind
    public var text: String?
    public var voice: VoiceNote?
    public var system: SystemNotice?
    /// The sender's idempotency key.
    public var clientId: String?
    /// Server time, ISO 8601 UTC with milliseconds.
    public var ts: String
    /// True once deleted for everyone (text and voice are then gone).
    public var deleted: Bool?
}

/// A member of a conversation.
public struct Member: Codable, Sendable, Equatable {
    public var userId: Int64
    public var displayName: String
    /// The member's read marker.
    public var readSeq: Int64
}

/// A conversation as `conversations.list` and `conversations.get` show it.
public struct Conversation: Codable, Sendable, Equatable {
    public var conversationId: Int64
    /// `direct` or `group`.
    public var kind: String
    /// The group's name, or the other members' names.
    public var name: String
    public var members: [Member]
    public var lastSeq: Int64
    public var lastActivityAt: String
    /// My read marker.
    public var readSeq: Int64
    /// Messages from others after my read marker.
    public var unreadCount: Int64
    /// The newest message I see (text cut to 100 characters).
    public var lastMessage: Message?
    /// False once I left the group.
    public var active: Bool
}

/// The acknowledgement of `messages.send`: the message is stored.
public struct SendAcknowledgement: Codable, Sendable, Equatable {
    public var messageId: Int64
    public var conversationId: Int64
    public var seq: Int64
    public var ts: String
}

/// A page of `messages.history`, newest first.
public struct HistoryPage: Codable, Sendable, Equatable {
    public var messages: [Message]
    /// Whether older messages exist (ask again with `before` = the oldest seq of this page).
    public var hasMore: Bool
}

/// The reply to `sync`, after its catch-up: each conversation's last seq and the number of messages sent.
public struct SyncSummary: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var conversationId: Int64
        public var lastSeq: Int64
    }

    public var conversations: [Entry]
    /// Messages the catch-up sent (before the client dropped duplicates).
    public var messages: Int
}

/// A user's presence.
public struct PresenceUpdate: Codable, Sendable, Equatable {
    public var userId: Int64
    /// `online`, `away` or `offline`.
    public var status: String
    /// With `offline`: when the user was last seen.
    public var lastSeen: String?
}

/// `conversation.read`: a member moved its read marker.
public struct ReadReceipt: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var userId: Int64
    public var seq: Int64
}

/// `message.hidden`: one of my devices hid a message for me.
public struct HiddenMessage: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var messageId: Int64
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

struct ConversationsResult: Decodable {
    var conversations: [Conversation]
}

struct ConversationResult: Decodable {
    var conversation: Conversation
}

struct MessageResult: Decodable {
    var message: Message
}

struct ReadResult: Decodable {
    var readSeq: Int64
}

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
