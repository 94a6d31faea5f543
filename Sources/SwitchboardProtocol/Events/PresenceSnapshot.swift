//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Sent to every device as it authenticates, with an entry per friend, so the server writes it with `eventJSON`, a
// hand-written encoder; a test compares its output with the `Codable` form (`ProtocolCodec.encodeEvent(_:)`) as
// parsed JSON.

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
