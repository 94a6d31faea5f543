//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

// Barriers instead of time windows: "nothing arrives" is checked up to the reply of a `ping` sent after the action,
// not for a fixed time.
//
// What a ping proves: the server answers `ping` on the connection's loop as soon as it reads it
// (`AccountsFeature`), and everything handed to that loop before (the outbox's `LocalOutbox.post`, replies of
// request tasks, a sync's catch-up) runs before the read that carries the ping, in order: the loop's queue is serial
// and its inbox is FIFO. So every event posted to the connection before the server read the ping is written before
// the ping's reply, and is among what `eventsBeforeBarrier` collects.
//
// What it does not prove on its own: that the work which would produce the unwanted event has run. Each use says
// why it has: the event would be pushed by the action's request task before its reply (most ops: `deliveries` then
// the result), or by an engine queue that the action's own reply (or a later reply to the checked connection) came
// through after it, or by a queue that a probe goes through first (`presenceBarrier`, the live pages' probe in
// `SocialLiveTests`). One gap is left where an engine's batch goes to several loops: `LocalOutbox.post` hands each
// loop its part one after the other, so the part of another loop may follow by a few instructions the reply that was
// just read. A miss there could only let a wrong event through unseen, never fail a correct server; where a probe
// is cheap it closes the gap.

extension ProtocolClient {
    /// Sends `ping` and reads until its reply. Every message that arrived before the reply is kept in `events` (in
    /// order); returns the events (messages with an `ev`) kept after the barrier, the earlier ones included.
    @discardableResult
    func eventsBeforeBarrier() throws -> [[String: Any]] {
        let id = try send("ping")
        let pong = try reply(id)
        #expect(ok(pong) != nil, "ping: \(pong)")
        return events.filter { $0["ev"] is String }
    }

    /// True when no event named `name` was received by the reply of a `ping` sent now (received or kept before
    /// included; every message stays kept).
    func noEventBeforeBarrier(_ name: String) throws -> Bool {
        try !eventsBeforeBarrier().contains { $0["ev"] as? String == name }
    }

    /// Every event named `name` received by the reply of a `ping` sent now (kept ones first); they are no longer
    /// kept, the other messages are.
    func allBeforeBarrier(_ name: String) throws -> [[String: Any]] {
        try eventsBeforeBarrier()
        let found = events.filter { $0["ev"] as? String == name }
        events.removeAll { $0["ev"] as? String == name }
        return found
    }
}

/// Waits until the presence hub has handled everything handed to it so far: a new connection of `probe` is sent its
/// `presence.snapshot` by the hub's serial queue after every change queued before the probe authenticated (a
/// `presence.set` is handed on before its reply; a closed connection before `HubServer.connectionCount` drops), and
/// after the events of those changes were handed to the outbox. (A change of a user whose friend list the hub is
/// still loading, just after the user's first connection, waits for the list.) Then a
/// ping on the connection that would get an event is a barrier for it. The probe connection is returned open: its
/// close would move `HubServer.connectionCount`, which tests watch (keep it until the test ends).
@discardableResult
func presenceBarrier(_ port: Int, probe: TestUser) throws -> ProtocolClient {
    let client = try reconnect(port, probe)
    _ = try client.event("presence.snapshot")
    return client
}
