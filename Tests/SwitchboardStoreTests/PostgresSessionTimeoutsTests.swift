//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardStore
import Testing

/// Issue 37, item 2: every pooled session carries lock, idle-in-transaction and statement limits.
@Suite("PostgreSQL session timeouts")
struct PostgresSessionTimeoutsTests {
    /// The limits hold on a pool's connections; a migration's transaction runs without them.
    @Test func theLimitsAreSetOnConnectAndMigrationsRunWithout() async throws {
        let url = try TestDatabase.shared.makeDatabase()
        let pool = try DatabasePool(
            connectionString: url, size: 1, logger: quietLogger(),
            timeouts: PostgresSessionTimeouts(lock: 1.5, idleInTransaction: 4, statement: 30))
        defer { pool.close() }
        let settings =
            "current_setting('lock_timeout'), current_setting('statement_timeout'), "
            + "current_setting('idle_in_transaction_session_timeout')"
        let migration = Migration(
            version: 1, name: "limits",
            sql: "CREATE TABLE seen AS SELECT current_setting('lock_timeout') AS lock, "
                + "current_setting('statement_timeout') AS statement, "
                + "current_setting('idle_in_transaction_session_timeout') AS idle")
        let (session, inMigration) = try await pool.withConnection { db in
            try Migrator.migrate(db, migrations: [migration], logger: quietLogger())
            func strings(_ rows: PostgresRows) throws -> [String] {
                guard let row = rows.first else { return [] }
                return try (0..<3).map { try row.decode(String.self, column: $0) }
            }
            return (try strings(db.query("SELECT \(settings)")), try strings(db.query("SELECT * FROM seen")))
        }
        #expect(session == ["1500ms", "30s", "4s"])
        #expect(inMigration == ["0", "0", "0"])
    }

    /// A session left idle inside a transaction is ended by PostgreSQL (its work and its locks with it); the
    /// connection's next statement runs on a new session with the same limits.
    @Test func aSessionIdleInATransactionIsTerminated() throws {
        let url = try TestDatabase.shared.makeDatabase()
        let idle = try PostgresConnection(
            connectionString: url, logger: quietLogger(),
            timeouts: PostgresSessionTimeouts(lock: 0, idleInTransaction: 0.2, statement: 0))
        let observer = try PostgresConnection(connectionString: url, logger: quietLogger())
        defer {
            try? on(idle) { $0.close() }
            try? on(observer) { $0.close() }
        }
        try on(observer) { db in try db.executeScript("CREATE TABLE work (n int)") }
        let pid = try on(idle) { db in
            try db.query("BEGIN")
            try db.query("INSERT INTO work VALUES (1)")
            return try db.query("SELECT pg_backend_pid()").decodeFirst(Int.self) ?? 0
        }
        // Wait (for the condition, up to 10 s) until PostgreSQL has ended that backend.
        let deadline = Date().addingTimeInterval(10)
        var alive = true
        while alive, Date() < deadline {
            alive = try on(observer) { db in
                try db.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [.int(Int64(pid))])
                    .decodeFirst(Int.self) == 1
            }
            if alive { usleep(20_000) }
        }
        #expect(!alive, "the idle transaction's session was not terminated")
        let rows = try on(observer) { db in try db.query("SELECT count(*) FROM work").decodeFirst(Int.self) }
        #expect(rows == 0, "the terminated transaction's insert was committed")
        let (newPid, setting) = try on(idle) { db in
            (
                try db.query("SELECT pg_backend_pid()").decodeFirst(Int.self) ?? 0,
                try db.query("SELECT current_setting('idle_in_transaction_session_timeout')").decodeFirst(String.self)
            )
        }
        #expect(newPid != pid)
        #expect(setting == "200ms")
    }
}
