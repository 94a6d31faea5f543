//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One event the server pushes without a request (`{"ev": "<name>", ...fields}`), declared once for the server
/// and the clients: its wire name and its fields. The server encodes it with `ProtocolCodec.encodeEvent(_:)`, and
/// clients decode the same type from the event frame. Keys are camelCase here and snake_case on the wire, as for
/// ops.
public protocol ProtocolEvent: Codable, Sendable {
    /// The event's name on the wire (`moment.liked`).
    static var name: String { get }
}

extension ProtocolCodec {
    /// Encodes `event` as a complete event frame's text: `{"ev": name, ...fields}`.
    public static func encodeEvent<E: ProtocolEvent>(_ event: E) -> [UInt8] {
        encodeEvent(E.name, event)
    }

    /// Encodes an event whose type is known only at run time (a service's list of events).
    public static func encodeAnyEvent(_ event: any ProtocolEvent) -> [UInt8] {
        func open<E: ProtocolEvent>(_ e: E) -> [UInt8] { encodeEvent(e) }
        return open(event)
    }
}
