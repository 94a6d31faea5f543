//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Sent on every status change to every friend's devices, so the server writes it with `eventJSON`, a hand-written
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
