//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// What a service says should be told, and to whom, once its transaction has committed: a typed protocol event
/// for every connected device of some users. Services return these instead of pushing bytes; the edge encodes each
/// once and hands it to the deliveries (every node of a cluster).
public struct DomainEvent: Sendable {
    /// The users whose connected devices hear the event (duplicates are ignored).
    public var users: [Int64]
    /// The event.
    public var event: any ProtocolEvent

    public init(to users: [Int64], _ event: any ProtocolEvent) {
        self.users = users
        self.event = event
    }

    /// The event's wire name.
    public var name: String { type(of: event).name }

    /// The event as it goes on the wire (`{"ev": name, ...fields}`).
    public func encoded() -> [UInt8] { ProtocolCodec.encodeAnyEvent(event) }
}
