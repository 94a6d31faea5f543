//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
