//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Message reactions (docs/protocol.md, "Reactions"): one emoji per user per message.

extension Ops {
    /// The reaction ops.
    public static let reactions: [any ProtocolOperation.Type] = [ReactionsSet.self]

    /// `reactions.set {message_id, emoji, active?}` -> `{conversation_id, message_id, reactions}`: sets my
    /// reaction to a message (replacing my earlier one), or removes it with `active` false.
    public enum ReactionsSet: ProtocolOperation {
        public static let name = "reactions.set"
        public static let stateChanging = true
        /// Setting the same emoji twice, or removing twice, leaves the same state.
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.reactions
        public struct Parameters: Codable, Sendable, Equatable {
            public var messageId: Int64
            /// At most 8 grapheme clusters and 64 UTF-8 bytes, no control characters.
            public var emoji: String
            /// False removes my reaction (whatever its emoji); default true.
            public var active: Bool?
            public init(messageId: Int64, emoji: String, active: Bool? = nil) {
                self.messageId = messageId
                self.emoji = emoji
                self.active = active
            }
        }
        public typealias Result = ReactionsResult
    }
}

/// The reactions to one message: per emoji, how many members chose it and whether I am one of them (`mine`,
/// absent in `message.reaction` events, which are encoded once for every recipient).
public struct ReactionCount: Codable, Sendable, Equatable {
    public var emoji: String
    public var count: Int64
    public var mine: Bool?
    public init(emoji: String, count: Int64, mine: Bool?) {
        self.emoji = emoji
        self.count = count
        self.mine = mine
    }
}

/// The reply to `reactions.set`: the message's counts after the change.
public struct ReactionsResult: Codable, Sendable, Equatable {
    public var conversationId: Int64
    public var messageId: Int64
    public var reactions: [ReactionCount]
    public init(conversationId: Int64, messageId: Int64, reactions: [ReactionCount]) {
        self.conversationId = conversationId
        self.messageId = messageId
        self.reactions = reactions
    }
}

/// The `message.reaction` event: `user_id` set (`emoji`) or removed (`emoji` null) a reaction; `reactions`
/// are the message's counts after it (without `mine`).
public struct MessageReactionEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "message.reaction"
    public var conversationId: Int64
    public var messageId: Int64
    public var userId: Int64
    public var emoji: String?
    public var reactions: [ReactionCount]
    public init(conversationId: Int64, messageId: Int64, userId: Int64, emoji: String?, reactions: [ReactionCount]) {
        self.conversationId = conversationId
        self.messageId = messageId
        self.userId = userId
        self.emoji = emoji
        self.reactions = reactions
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(conversationId, forKey: .conversationId)
        try c.encode(messageId, forKey: .messageId)
        try c.encode(userId, forKey: .userId)
        // null when removed
        try c.encode(emoji, forKey: .emoji)
        try c.encode(reactions, forKey: .reactions)
    }
}
