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
// (`IdentityFeature`), and everything handed to that loop before (the outbox's `LocalOutbox.post`, replies of
// request tasks, a sync's catch-up) runs before the read that carries the ping, in order: the loop's queue is serial
// and its inbox is FIFO. So every event posted to the connection before the server read the ping is written before
// the ping's reply, and is among what `eventsBeforeBarrier` collects.
//
// What it does not prove on its own: that the work which would produce the unwanted event has run, and has handed
// its part for this connection's loop to the outbox. Each use says why it has:
// - the event would be pushed by the action's request task before its reply (most ops: `deliveries`, then the
//   result): done before the action's reply was even sent;
// - or by an engine queue that a later request of the checked connection went through (its reply comes after
//   everything the queue handed over before);
// - or by a queue that a probe goes through first (`eventsBeforeWriterBarrier` for a conversation's writer,
//   `presenceBarrier`, the live pages' probe in `SocialLiveTests`).
// An acknowledgement read from an engine is not enough: `LocalOutbox.post` hands each loop its part of a batch one
// after the other, and the sender's reply first. `BarrierTests` measured it: a ping sent by Bob right after Ann's
// acknowledgement came back before her message to him in about half of 20 rounds (on two busy cores the writer's
// thread can be descheduled between the hand-offs).

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

    /// A barrier through a conversation's writer, then a ping (`eventsBeforeBarrier`): a `typing` stop is answered
    /// by the writer's serial queue after every batch it handed to the outbox before (all of each batch, every
    /// loop's part), so what those batches had for this connection came before that reply. It changes nothing: not
    /// typing, nothing is announced (a non-member's is refused by the writer too). Counts against the user's typing
    /// rate limit, which must let it through.
    @discardableResult
    func eventsBeforeWriterBarrier(_ conversationId: Int) throws -> [[String: Any]] {
        let reply = try call("typing", ["conversation_id": conversationId, "active": false])
        #expect(errorCode(reply) != "rate_limited", "the writer barrier was rate limited")
        return try eventsBeforeBarrier()
    }

    /// True when no event named `name` was received by a writer barrier (`eventsBeforeWriterBarrier`).
    func noEventBeforeWriterBarrier(_ name: String, conversation conversationId: Int) throws -> Bool {
        try !eventsBeforeWriterBarrier(conversationId).contains { $0["ev"] as? String == name }
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
