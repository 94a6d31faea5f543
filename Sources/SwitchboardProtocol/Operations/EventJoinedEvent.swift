//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The `event.joined` event: `{event}` to the joining user's devices.
public struct EventJoinedEvent: ProtocolEvent, Equatable {
    /// The event's name on the wire.
    public static let name = "event.joined"
    /// The event joined, as `events.join` answers it.
    public var event: EventInfo
    /// The fields of the event.
    public init(event: EventInfo) { self.event = event }
}
