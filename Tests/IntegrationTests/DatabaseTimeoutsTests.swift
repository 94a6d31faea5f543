//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardServer
import SwitchboardStore
import Testing

/// Issue 37, item 2: a send to a conversation whose row another session holds locked fails with a typed, retriable
/// error after the lock timeout (`--db-lock-timeout`) instead of waiting for the holder.
@Suite("Database lock timeout over the real protocol", .serialized)
struct DatabaseTimeoutsTests {
    @Test func aSendToALockedConversationAnswersUnavailableAndTheResendSucceeds() throws {
        let (server, port, database) = try startProtocolServer { $0.databaseLockTimeout = 0.3 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let first = try #require(ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "one"])))
        let conversation = try #require(first["conversation_id"] as? Int)

        // Another session (an operator's psql, a stuck job) holds the conversation's row lock.
        let holder = try PostgresConnection(connectionString: TestDatabase.shared.url, logger: Logger(label: "test"))
        defer { holder.queue.sync { holder.close() } }
        try holder.queue.sync {
            try holder.query("BEGIN")
            try holder.query("SELECT id FROM conversations WHERE id = $1 FOR UPDATE", [.int(Int64(conversation))])
        }
        let blocked = try ann.client.call(
            "messages.send", ["conversation_id": conversation, "text": "two", "client_id": "lock-1"])
        #expect(errorCode(blocked) == "unavailable")
        #expect(((blocked["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)

        // Once the holder is done, the resend with the same client id is stored (once).
        try holder.queue.sync { _ = try holder.query("ROLLBACK") }
        let resent = try #require(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "text": "two", "client_id": "lock-1"])))
        #expect(resent["seq"] as? Int == 2)
    }
}
