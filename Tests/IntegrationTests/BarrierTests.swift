//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// The barriers that replaced "no event within N s" (`ProtocolClient+Barrier.swift`) must see an event that was sent
/// before them: otherwise every "nothing arrived" checked with them would pass whatever the server sent. Each case
/// checks, right after the action's reply and without reading first, that the event is among what a barrier collects;
/// several rounds, since a barrier that only races the event would pass some of them.
@Suite("Barriers see the events sent before them", .serialized)
struct BarrierTests {
    static let rounds = 20

    /// Messages: handed to the outbox by the conversation's writer in the batch of the sender's acknowledgement;
    /// a ping alone, right after the acknowledgement, missed them in about half of the rounds (the writer may hand
    /// the other loops their parts after the sender already read its reply).
    @Test func aMessageAcknowledgedBeforeTheWriterBarrierIsSeen() throws {
        let (server, port, database) = try startProtocolServer { $0.messaging.typingBurst = 1000 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let ann2 = try secondDevice(port, ann, "ann-2")
        for round in 0..<Self.rounds {
            let ack = try #require(ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "m\(round)"])))
            let conversation = try #require(ack["conversation_id"] as? Int)
            let seen = try bob.client.eventsBeforeWriterBarrier(conversation).filter {
                $0["ev"] as? String == "message"
            }
            #expect(seen.count == 1, "round \(round): \(seen)")
            bob.client.events.removeAll()
            // The sender's other device.
            #expect(try !ann2.noEventBeforeWriterBarrier("message", conversation: conversation), "round \(round)")
            ann2.events.removeAll()
        }
    }

    /// Events pushed by a request before its reply (`moments.like`: `moment.liked` to the owner's devices).
    @Test func anEventPushedBeforeTheReplyIsSeen() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let photo = try testPhoto(database, owner: ann.id)
        let moment = try #require(ok(try ann.client.call("moments.create", ["photo_ids": [photo]])))
        let id = try #require((moment["moment"] as? [String: Any])?["moment_id"] as? Int)
        for round in 0..<Self.rounds {
            let op = round % 2 == 0 ? "moments.like" : "moments.unlike"
            _ = try #require(ok(try bob.client.call(op, ["moment_id": id])))
            #expect(try ann.client.allBeforeBarrier("moment.liked").count == 1, "round \(round)")
        }
    }

    /// Presence: published by the hub after the `presence.set` reply; the probe's snapshot comes after it.
    @Test func aPresenceChangeBeforeTheProbeIsSeen() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let zed = try makeUser(port, "zed")
        try befriend(ann, bob)
        _ = try ann.client.event("presence")
        var probes: [ProtocolClient] = []
        for round in 0..<Self.rounds {
            let status = round % 2 == 0 ? "away" : "online"
            _ = try #require(ok(try bob.client.call("presence.set", ["status": status])))
            probes.append(try presenceBarrier(port, probe: zed))
            let seen = try ann.client.allBeforeBarrier("presence")
            #expect(seen.map { $0["status"] as? String } == [status], "round \(round)")
        }
        withExtendedLifetime(probes) {}
    }
}
