//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// What a system message says (membership changes, renames, deletions, call records).
public struct SystemEvent: Codable, Sendable, Equatable {
    /// `created`, `member_added`, `member_left`, `renamed`, `message_deleted` or `call`.
    public var event: String
    /// The user who did it (creator, adder, leaver, renamer, deleter, caller).
    public var actorId: Int64?
    /// The users it concerns (members of a new group, the added member).
    public var userIds: [Int64]?
    /// A group's new name.
    public var name: String?
    /// The deleted message.
    public var messageId: Int64?
    /// Call records: the call id, `voice` or `video`, the outcome and the duration of a completed call.
    public var callId: String?
    public var media: String?
    public var outcome: String?
    public var durationMs: Int64?

    public init(
        event: String, actorId: Int64? = nil, userIds: [Int64]? = nil, name: String? = nil, messageId: Int64? = nil,
        callId: String? = nil, media: String? = nil, outcome: String? = nil, durationMs: Int64? = nil
    ) {
        self.event = event
        self.actorId = actorId
        self.userIds = userIds
        self.name = name
        self.messageId = messageId
        self.callId = callId
        self.media = media
        self.outcome = outcome
        self.durationMs = durationMs
    }

    /// The JSON stored in `messages.body`.
    public var json: String { String(decoding: MessageJSON.encode(self), as: UTF8.self) }

    /// Parses stored JSON (nil when it is not a system event).
    public static func parse(_ text: String) -> SystemEvent? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try? decoder.decode(SystemEvent.self, from: Data(text.utf8))
    }
}

/// A voice message's audio as messages carry it (the audio itself is fetched over HTTP).
public struct VoiceAttachment: Codable, Sendable, Equatable {
    public var voiceId: Int64
    public var durationMs: Int64
    /// 100 values 0-31.
    public var waveform: [Int]
    public var size: Int64
    public var mimeType: String

    public init(voiceId: Int64, durationMs: Int64, waveform: [Int], size: Int64, mimeType: String) {
        self.voiceId = voiceId
        self.durationMs = durationMs
        self.waveform = waveform
        self.size = size
        self.mimeType = mimeType
    }

    /// The JSON stored in `messages.body`.
    public var json: String { String(decoding: MessageJSON.encode(self), as: UTF8.self) }

    /// Parses stored JSON.
    public static func parse(_ text: String) -> VoiceAttachment? {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try? decoder.decode(VoiceAttachment.self, from: Data(text.utf8))
    }
}

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

/// A participant of a conversation.
public struct ConversationMember: Codable, Sendable, Equatable {
    public var userId: Int64
    public var displayName: String
    /// The member's read marker: the highest seq it has read.
    public var readSeq: Int64

    public init(userId: Int64, displayName: String, readSeq: Int64) {
        self.userId = userId
        self.displayName = displayName
        self.readSeq = readSeq
    }
}

/// A conversation as `conversations.list` and `conversations.get` show it.
public struct ConversationSummary: Codable, Sendable, Equatable {
    public var conversationId: Int64
    /// `direct` or `group`.
    public var kind: String
    /// The group's name, or the other members' names.
    public var name: String
    /// Current members (for a direct conversation, both users).
    public var members: [ConversationMember]
    public var lastSeq: Int64
    public var lastActivityAt: String
    /// My read marker.
    public var readSeq: Int64
    /// Messages from others after my read marker (not counting hidden ones).
    public var unreadCount: Int64
    /// The newest message visible to me (text cut to 100 characters).
    public var lastMessage: ChatMessage?
    /// False once I have left the group (I still see its history up to my leaving).
    public var active: Bool

    public init(
        conversationId: Int64, kind: String, name: String, members: [ConversationMember], lastSeq: Int64,
        lastActivityAt: String,
        readSeq: Int64, unreadCount: Int64, lastMessage: ChatMessage?, active: Bool
    ) {
        self.conversationId = conversationId
        self.kind = kind
        self.name = name
        self.members = members
        self.lastSeq = lastSeq
        self.lastActivityAt = lastActivityAt
        self.readSeq = readSeq
        self.unreadCount = unreadCount
        self.lastMessage = lastMessage
        self.active = active
    }
}

/// The reply to `messages.send`: the acknowledgement.
public struct SendAck: Codable, Sendable, Equatable {
    public var messageId: Int64
    public var conversationId: Int64
    public var seq: Int64
    public var ts: String
    public init(messageId: Int64, conversationId: Int64, seq: Int64, ts: String) {
        self.messageId = messageId
        self.conversationId = conversationId
        self.seq = seq
        self.ts = ts
    }
}

/// Text message rules (a `StoredText` rule for the field `text`).
public enum MessageText {
    /// The rule of a text message: 1 to `maxCharacters` characters and at most `maxBytes` UTF-8 bytes, not
    /// only white space, no control characters other than line feed, carriage return and tab.
    public static func rule(maxCharacters: Int, maxBytes: Int) -> TextRule {
        TextRule(field: "text", maxCharacters: maxCharacters, maxBytes: maxBytes, controls: .lineBreaksAndTabs)
    }

    /// Checks a text message against `rule(maxCharacters:maxBytes:)` (no byte limit unless given). Returns
    /// the reason it is refused, or nil.
    public static func problem(_ text: String, maxCharacters: Int, maxBytes: Int = .max) -> String? {
        StoredText.problem(text, rule(maxCharacters: maxCharacters, maxBytes: maxBytes))
    }
}

/// Encodes our small Codable types the way the protocol does (snake_case, sorted keys).
enum MessageJSON {
    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }
}

/// A minimal JSON writer for the hot paths (message events and acknowledgements): appends bytes without
/// going through `JSONEncoder`. The caller writes keys in sorted order to match the protocol's encoder.
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    public init() { bytes.reserveCapacity(256) }

    public mutating func beginObject() {
        comma()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        comma()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    public mutating func key(_ key: String) {
        comma()
        appendString(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ value: String) {
        comma()
        appendString(value)
        needsComma = true
    }

    public mutating func int(_ value: Int64) {
        comma()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// Appends already-encoded JSON.
    public mutating func raw(_ json: String) {
        comma()
        bytes.append(contentsOf: json.utf8)
        needsComma = true
    }

    /// Appends already-encoded JSON.
    public mutating func raw(_ json: [UInt8]) {
        comma()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    private mutating func comma() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = false
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                bytes.append(Self.hex[Int(b >> 4)])
                bytes.append(Self.hex[Int(b & 0xF)])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
