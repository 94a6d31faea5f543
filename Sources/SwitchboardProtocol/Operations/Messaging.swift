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
        public static let stringParameters: [String: StringParameter] = ["text": .message]
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
