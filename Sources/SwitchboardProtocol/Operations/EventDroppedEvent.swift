//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The `event.dropped` event: `{event_id}` to the user's devices.
public struct EventDroppedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "event.dropped"
    public var eventId: Int64
    public init(eventId: Int64) { self.eventId = eventId }
}
