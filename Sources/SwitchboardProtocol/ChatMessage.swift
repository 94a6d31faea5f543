//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One stored message as clients see it.
public struct ChatMessage: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case text, voice, system
    }

    public var id: Int64
    public var conversationId: Int64
    /// Position in the conversation: 1, 2, 3, ... without gaps.
    public var seq: Int64
    /// Nil for system messages.
    public var senderId: Int64?
    public var kind: Kind
    public var text: String?
    public var voice: VoiceAttachment?
    public var system: SystemEvent?
    /// The sender's idempotency key.
    public var clientId: String?
    /// Server time of storing, ISO 8601 UTC with milliseconds.
    public var ts: String
    /// Set when the sender deleted it for everyone (text and voice are then gone).
    public var deleted: Bool?
    /// Set on the tombstones of a deleted account's messages (with `deleted`): show the sender as a deleted account.
    public var senderDeleted: Bool?
    /// The reactions, per emoji (in `messages.history` and `sync` catch-up; absent when there are none and
    /// in live `message` events).
    public var reactions: [ReactionCount]?

    public init(
        id: Int64, conversationId: Int64, seq: Int64, senderId: Int64?, kind: Kind, text: String? = nil,
        voice: VoiceAttachment? = nil, system: SystemEvent? = nil, clientId: String? = nil, ts: String,
        deleted: Bool? = nil, reactions: [ReactionCount]? = nil, senderDeleted: Bool? = nil
    ) {
        self.id = id
        self.conversationId = conversationId
        self.seq = seq
        self.senderId = senderId
        self.kind = kind
        self.text = text
        self.voice = voice
        self.system = system
        self.clientId = clientId
        self.ts = ts
        self.deleted = deleted
        self.reactions = reactions
        self.senderDeleted = senderDeleted
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(clientId, forKey: .clientId)
        try c.encode(conversationId, forKey: .conversationId)
        try c.encodeIfPresent(deleted, forKey: .deleted)
        try c.encode(id, forKey: .id)
        try c.encode(kind, forKey: .kind)
        try c.encodeIfPresent(reactions, forKey: .reactions)
        // null for system messages, as in the hand-written event encoding
        try c.encodeIfPresent(senderDeleted, forKey: .senderDeleted)
        try c.encode(senderId, forKey: .senderId)
        try c.encode(seq, forKey: .seq)
        try c.encodeIfPresent(system, forKey: .system)
        try c.encodeIfPresent(text, forKey: .text)
        try c.encode(ts, forKey: .ts)
        try c.encodeIfPresent(voice, forKey: .voice)
    }

    /// The `message` event for this message (`MessageEvent`), encoded once for every recipient.
    public var eventJSON: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ev")
        w.string(MessageEvent.name)
        w.key("message")
        writeObject(&w)
        w.endObject()
        return w.bytes
    }

    /// Writes the message as a JSON object (snake_case keys, as every protocol object).
    public func writeObject(_ w: inout JSONWriter) {
        w.beginObject()
        if let clientId {
            w.key("client_id")
            w.string(clientId)
        }
        w.key("conversation_id")
        w.int(conversationId)
        if deleted == true {
            w.key("deleted")
            w.raw("true")
        }
        w.key("id")
        w.int(id)
        w.key("kind")
        w.string(kind.rawValue)
        if let reactions, !reactions.isEmpty {
            w.key("reactions")
            w.raw(MessageJSON.encode(reactions))
        }
        if senderDeleted == true {
            w.key("sender_deleted")
            w.raw("true")
        }
        w.key("sender_id")
        if let senderId { w.int(senderId) } else { w.raw("null") }
        w.key("seq")
        w.int(seq)
        if let system {
            w.key("system")
            w.raw(MessageJSON.encode(system))
        }
        if let text {
            w.key("text")
            w.string(text)
        }
        w.key("ts")
        w.string(ts)
        if let voice {
            w.key("voice")
            w.raw(MessageJSON.encode(voice))
        }
        w.endObject()
    }
}
