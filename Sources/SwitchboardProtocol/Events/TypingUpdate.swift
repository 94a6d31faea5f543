//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Sent on every typing update to every other member's devices, so the server writes it with `eventJSON`, a
// hand-written encoder; a test compares its output with the `Codable` form (`ProtocolCodec.encodeEvent(_:)`) as
// parsed JSON.

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
