//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Conversations and messages (docs/protocol.md, "Messaging").

extension Ops {
    /// The messaging ops.
    public static let messaging: [any ProtocolOperation.Type] = [
        ConversationsList.self, ConversationsGet.self, ConversationsDirect.self, ConversationsRead.self,
        GroupsCreate.self, GroupsAdd.self, GroupsLeave.self, GroupsRename.self, MessagesSend.self,
        MessagesHistory.self, MessagesDelete.self, MessagesHide.self, Sync.self, MessagesPin.self,
        MessagesUnpin.self, ConversationsPins.self,
    ]

    /// `conversations.list {}` -> `{conversations}`, latest activity first.
    public enum ConversationsList: ProtocolOperation {
        public static let name = "conversations.list"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = Empty
        public typealias Result = ConversationsResult
    }

    /// `conversations.get {conversation_id}` -> `{conversation}`.
    public enum ConversationsGet: ProtocolOperation {
        public static let name = "conversations.get"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = ConversationIDParameters
        public typealias Result = ConversationResult
    }

    /// `conversations.direct {user_id}` -> `{conversation}` (created on first use).
    public enum ConversationsDirect: ProtocolOperation {
        public static let name = "conversations.direct"
        public static let stateChanging = true
        public static let idempotent = true
        public typealias Parameters = UserIDParameters
        public typealias Result = ConversationResult
    }

    /// `conversations.read {conversation_id, seq}` -> `{read_seq}`.
    public enum ConversationsRead: ProtocolOperation {
        public static let name = "conversations.read"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var conversationId: Int64
            public var seq: Int64
            public init(conversationId: Int64, seq: Int64) {
                self.conversationId = conversationId
                self.seq = seq
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var readSeq: Int64
            public init(readSeq: Int64) { self.readSeq = readSeq }
        }
    }

    /// `groups.create {name?, member_ids}` -> `{conversation}`.
    public enum GroupsCreate: ProtocolOperation {
        public static let name = "groups.create"
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var name: String?
            public var memberIds: [Int64]
            public init(name: String? = nil, memberIds: [Int64]) {
                self.name = name
                self.memberIds = memberIds
            }
        }
        public typealias Result = ConversationResult
    }

    /// `groups.add {conversation_id, user_id}` -> `{message}` (the system message `member_added`).
    public enum GroupsAdd: ProtocolOperation {
        public static let name = "groups.add"
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var conversationId: Int64
            public var userId: Int64
            public init(conversationId: Int64, userId: Int64) {
                self.conversationId = conversationId
                self.userId = userId
            }
        }
        public typealias Result = MessageResult
    }

    /// `groups.leave {conversation_id}` -> `{message}` (the system message `member_left`).
    public enum GroupsLeave: ProtocolOperation {
        public static let name = "groups.leave"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = ConversationIDParameters
        public typealias Result = MessageResult
    }

    /// `groups.rename {conversation_id, name}` -> `{message}` (the system message `renamed`).
    public enum GroupsRename: ProtocolOperation {
        public static let name = "groups.rename"
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var conversationId: Int64
            public var name: String
            public init(conversationId: Int64, name: String) {
                self.conversationId = conversationId
                self.name = name
            }
        }
        public typealias Result = MessageResult
    }

    /// `messages.send {conversation_id | user_id, client_id?, text | voice_id}` -> the acknowledgement. A resend
    /// is safe only with a `client_id` (the client decides per request).
    public enum MessagesSend: ProtocolOperation {
        public static let name = "messages.send"
        public static let stateChanging = true
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.messages
        public struct Parameters: Codable, Sendable, Equatable {
            public var conversationId: Int64?
            public var userId: Int64?
            public var clientId: String?
            public var text: String?
            public var voiceId: Int64?
            public init(
                conversationId: Int64? = nil, userId: Int64? = nil, clientId: String? = nil, text: String? = nil,
                voiceId: Int64? = nil
            ) {
                self.conversationId = conversationId
                self.userId = userId
                self.clientId = clientId
                self.text = text
                self.voiceId = voiceId
            }
        }
        public typealias Result = SendAck
    }

    /// `messages.history {conversation_id, before?, limit?}` -> `{messages, has_more}`, newest first.
    public enum MessagesHistory: ProtocolOperation {
        public static let name = "messages.history"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var conversationId: Int64
            public var before: Int64?
            public var limit: Int?
            public init(conversationId: Int64, before: Int64? = nil, limit: Int? = nil) {
                self.conversationId = conversationId
                self.before = before
                self.limit = limit
            }
        }
        public typealias Result = HistoryResult
    }

    /// `messages.delete {message_id}` -> `{message}` (the tombstone, system `message_deleted`).
    public enum MessagesDelete: ProtocolOperation {
        public static let name = "messages.delete"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = MessageIDParameters
        public typealias Result = MessageResult
    }

    /// `messages.hide {message_id}` -> `{}`.
    public enum MessagesHide: ProtocolOperation {
        public static let name = "messages.hide"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = MessageIDParameters
        public typealias Result = Empty
    }

    /// `sync {since?}` -> `{conversations, messages}` after its catch-up of `message` events.
    public enum Sync: ProtocolOperation {
        public static let name = "sync"
        public static let stateChanging = false
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            /// Conversation id (as a string: a JSON key) to the last seq the client has.
            public var since: [String: Int64]?
            public init(since: [String: Int64]? = nil) { self.since = since }
        }
        public typealias Result = SyncResult
    }

    /// `messages.pin {message_id}` -> `{conversation_id, pin}`: any current member pins a message it sees (not a
    /// system message, not a deleted one), up to the conversation's limit. Pinning a pinned message answers its pin
    /// and changes nothing, so a resend is safe. Counts against the sender's message bucket.
    public enum MessagesPin: ProtocolOperation {
        public static let name = "messages.pin"
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.messages
        public typealias Parameters = MessageIDParameters
        public typealias Result = PinResult
    }

    /// `messages.unpin {message_id}` -> `{conversation_id, message_id}`: any current member unpins; unpinning a
    /// message that is not pinned changes nothing (a resend is safe). Counts against the message bucket.
    public enum MessagesUnpin: ProtocolOperation {
        public static let name = "messages.unpin"
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.messages
        public typealias Parameters = MessageIDParameters
        public typealias Result = UnpinResult
    }

    /// `conversations.pins {conversation_id}` -> `{conversation_id, pins, max_pins}`: the pinned messages the
    /// caller sees, latest pin first (current members only).
    public enum ConversationsPins: ProtocolOperation {
        public static let name = "conversations.pins"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = ConversationIDParameters
        public typealias Result = PinsResult
    }
}

/// `{conversation_id}`.
public struct ConversationIDParameters: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public init(conversationId: Int64) { self.conversationId = conversationId }
}

/// `{user_id}`.
public struct UserIDParameters: Codable, Sendable, Equatable {
    public var userId: Int64
    public init(userId: Int64) { self.userId = userId }
}

/// `{message_id}`.
public struct MessageIDParameters: Codable, Sendable, Equatable {
    public var messageId: Int64
    public init(messageId: Int64) { self.messageId = messageId }
}

/// `{conversations}`.
public struct ConversationsResult: Codable, Sendable, Equatable {
    public var conversations: [ConversationSummary]
    public init(conversations: [ConversationSummary]) { self.conversations = conversations }
}

/// `{conversation}`.
public struct ConversationResult: Codable, Sendable, Equatable {
    public var conversation: ConversationSummary
    public init(conversation: ConversationSummary) { self.conversation = conversation }
}

/// `{message}`.
public struct MessageResult: Codable, Sendable, Equatable {
    public var message: ChatMessage
    public init(message: ChatMessage) { self.message = message }
}

/// A page of `messages.history`, newest first.
public struct HistoryResult: Codable, Sendable, Equatable {
    public var messages: [ChatMessage]
    /// Whether older messages exist (ask again with `before` = the oldest seq of this page).
    public var hasMore: Bool
    public init(messages: [ChatMessage], hasMore: Bool) {
        self.messages = messages
        self.hasMore = hasMore
    }
}

/// The reply to `sync`, after its catch-up: each conversation's last seq and the number of messages sent.
public struct SyncResult: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var conversationId: Int64
        public var lastSeq: Int64
        public init(conversationId: Int64, lastSeq: Int64) {
            self.conversationId = conversationId
            self.lastSeq = lastSeq
        }
    }

    public var conversations: [Entry]
    /// Messages the catch-up sent (before the client dropped duplicates).
    public var messages: Int
    public init(conversations: [Entry], messages: Int) {
        self.conversations = conversations
        self.messages = messages
    }
}

/// A pinned message: the message as stored, who pinned it (null once that account is deleted) and when.
public struct MessagePin: Codable, Sendable, Equatable {
    /// The message (without reactions).
    public var message: ChatMessage
    /// The member who pinned it; nil when that account was deleted.
    public var pinnedBy: Int64?
    /// When it was pinned (ISO 8601 UTC with milliseconds).
    public var pinnedAt: String
    public init(message: ChatMessage, pinnedBy: Int64?, pinnedAt: String) {
        self.message = message
        self.pinnedBy = pinnedBy
        self.pinnedAt = pinnedAt
    }

    enum CodingKeys: String, CodingKey {
        case message, pinnedBy, pinnedAt
    }

    /// `pinned_by` is always sent: null once the account that pinned is deleted.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(message, forKey: .message)
        try container.encode(pinnedBy, forKey: .pinnedBy)
        try container.encode(pinnedAt, forKey: .pinnedAt)
    }
}

/// The result of `messages.pin`: the pin (the stored one when the message was pinned already).
public struct PinResult: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var pin: MessagePin
    public init(conversationId: Int64, pin: MessagePin) {
        self.conversationId = conversationId
        self.pin = pin
    }
}

/// The result of `messages.unpin`.
public struct UnpinResult: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var messageId: Int64
    public init(conversationId: Int64, messageId: Int64) {
        self.conversationId = conversationId
        self.messageId = messageId
    }
}

/// The result of `conversations.pins`: the pinned messages the caller sees, latest pin first.
public struct PinsResult: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var pins: [MessagePin]
    /// The most pins the conversation may hold (`--max-pinned-messages`).
    public var maxPins: Int
    public init(conversationId: Int64, pins: [MessagePin], maxPins: Int) {
        self.conversationId = conversationId
        self.pins = pins
        self.maxPins = maxPins
    }
}

// MARK: - Events

/// `conversation.read`: a member moved its read marker.
public struct ReadReceipt: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "conversation.read"
    public var conversationId: Int64
    public var userId: Int64
    public var seq: Int64
    public init(conversationId: Int64, userId: Int64, seq: Int64) {
        self.conversationId = conversationId
        self.userId = userId
        self.seq = seq
    }
}

/// `message.hidden`: one of my devices hid a message for me.
public struct HiddenMessage: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "message.hidden"
    public var conversationId: Int64
    public var messageId: Int64
    public init(conversationId: Int64, messageId: Int64) {
        self.conversationId = conversationId
        self.messageId = messageId
    }
}

/// `message.pinned`: a member pinned a message (no system message is written: pins take no seq).
public struct MessagePinnedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "message.pinned"
    public var conversationId: Int64
    public var pin: MessagePin
    public init(conversationId: Int64, pin: MessagePin) {
        self.conversationId = conversationId
        self.pin = pin
    }
}

/// `message.unpinned`: a member unpinned a message.
public struct MessageUnpinnedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "message.unpinned"
    public var conversationId: Int64
    public var messageId: Int64
    /// The member who unpinned it.
    public var userId: Int64
    public init(conversationId: Int64, messageId: Int64, userId: Int64) {
        self.conversationId = conversationId
        self.messageId = messageId
        self.userId = userId
    }
}
