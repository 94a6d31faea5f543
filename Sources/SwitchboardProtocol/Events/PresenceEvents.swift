//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Presence and typing events (docs/protocol.md, "Messaging"). They are sent often (every status change to every
// friend, every typing update to every member), so the server writes them with `eventJSON`, a hand-written
// encoder; a test compares its output with the `Codable` form (`ProtocolCodec.encodeEvent(_:)`) as parsed JSON.

/// `presence {user_id, status, last_seen?}`: a friend's status changed, to the friends' devices.
public struct PresenceUpdate: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "presence"
    /// Whose status.
    public var userId: Int64
    /// `online`, `away` or `offline`.
    public var status: String
    /// With `offline`: when the user was last seen (when the server knows it).
    public var lastSeen: String?

    /// The fields of the event.
    public init(userId: Int64, status: String, lastSeen: String? = nil) {
        self.userId = userId
        self.status = status
        self.lastSeen = lastSeen
    }

    /// The event frame, without `JSONEncoder` (the hot path): `{"ev":"presence","last_seen"?,"status","user_id"}`.
    public var eventJSON: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ev")
        w.string(Self.name)
        writeFields(&w)
        w.endObject()
        return w.bytes
    }

    /// Writes `last_seen` (when set), `status` and `user_id` into an open object.
    func writeFields(_ w: inout JSONWriter) {
        if let lastSeen {
            w.key("last_seen")
            w.string(lastSeen)
        }
        w.key("status")
        w.string(status)
        w.key("user_id")
        w.int(userId)
    }
}

/// `presence.snapshot {presence: [{user_id, status, last_seen?}]}`: every friend's status, to a device right after it
/// authenticated.
public struct PresenceSnapshot: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "presence.snapshot"
    /// One entry per friend.
    public var presence: [PresenceUpdate]

    /// The fields of the event.
    public init(presence: [PresenceUpdate]) { self.presence = presence }

    /// The event frame, without `JSONEncoder` (the hot path).
    public var eventJSON: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ev")
        w.string(Self.name)
        w.key("presence")
        w.beginArray()
        for entry in presence {
            w.beginObject()
            entry.writeFields(&w)
            w.endObject()
        }
        w.endArray()
        w.endObject()
        return w.bytes
    }
}

/// `typing {conversation_id, user_id, activity, active, expires_in_ms}`: a member is typing or recording (or
/// stopped), to the other members' online devices.
public struct TypingUpdate: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "typing"
    /// The conversation.
    public var conversationId: Int64
    /// Who types.
    public var userId: Int64
    /// `typing` or `recording`.
    public var activity: String
    /// False: stopped (explicitly, or the update expired).
    public var active: Bool
    /// When it expires unless refreshed (0 when not active).
    public var expiresInMs: Int64

    /// The fields of the event.
    public init(conversationId: Int64, userId: Int64, activity: String, active: Bool, expiresInMs: Int64) {
        self.conversationId = conversationId
        self.userId = userId
        self.activity = activity
        self.active = active
        self.expiresInMs = expiresInMs
    }

    /// The event frame, without `JSONEncoder` (the hot path).
    public var eventJSON: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("activity")
        w.string(activity)
        w.key("active")
        w.raw(active ? "true" : "false")
        w.key("conversation_id")
        w.int(conversationId)
        w.key("ev")
        w.string(Self.name)
        w.key("expires_in_ms")
        w.int(expiresInMs)
        w.key("user_id")
        w.int(userId)
        w.endObject()
        return w.bytes
    }
}
