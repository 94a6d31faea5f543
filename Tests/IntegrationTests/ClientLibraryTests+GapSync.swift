//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import Testing

/// Issue 37, item 2: a live message that arrives over a gap in its conversation's seqs makes the client `sync`, and
/// the missing messages are given once, in seq order.
extension ClientLibraryTests {
    @Test func aMessageOverAGapMakesTheClientSyncTheMissingOnes() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let bobEvents = EventLog(bob)
        let annUser = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        try await befriend(ann, bob, bobUser)
        let first = try await ann.sendText("one", to: .user(bobUser.id))
        let conversation = first.conversationId
        #expect(await bobEvents.wait { _ in bobEvents.messages.contains { $0.text == "one" } })

        // Two messages committed without a live delivery (as when a node dies between its commit and the bus, or
        // the bus loses them): Bob's connection never gets them live.
        try runSQL(
            database,
            """
            INSERT INTO messages (conversation_id, seq, sender_id, kind, body) VALUES
                (\(conversation), 2, \(annUser.id), 'text', 'two'),
                (\(conversation), 3, \(annUser.id), 'text', 'three');
            UPDATE conversations SET last_seq = 3 WHERE id = \(conversation);
            """)
        let fourth = try await ann.sendText("four", to: .conversation(conversation))
        #expect(fourth.seq == 4)
        #expect(
            await bobEvents.wait { _ in bobEvents.messages.filter { $0.conversationId == conversation }.count >= 4 })
        let given = bobEvents.messages.filter { $0.conversationId == conversation }
        #expect(given.map(\.text) == ["one", "four", "two", "three"])
        #expect(Set(given.map(\.seq)) == [1, 2, 3, 4])
        await ann.close()
        await bob.close()
    }
}
