//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import SwitchboardStore
import Testing

@Suite("PostgresConnection")
struct PostgresConnectionTests {
    let connectionString: String

    init() throws {
        connectionString = try TestDatabase.shared.makeDatabase()
    }

    private func connect(logger: Logger? = nil) throws -> PostgresConnection {
        try PostgresConnection(connectionString: connectionString, logger: logger ?? quietLogger())
    }

    @Test("SQL-injection-shaped strings, unicode and NULLs are stored verbatim")
    func verbatimParameters() throws {
        let connection = try connect()
        let values: [String?] = [
            "'); DROP TABLE notes; --", "Robert'); DELETE FROM notes WHERE ('1'='1", "\\x00 \\' \" $1 $$ E'\\n'",
            "héllo wörld 你好 🎙️ \u{200D}", "", nil, "tab\there\nnewline",
        ]
        let stored = try on(connection) { connection -> [String?] in
            try connection.query("CREATE TABLE notes (id serial PRIMARY KEY, body text)")
            for value in values {
                try connection.query("INSERT INTO notes (body) VALUES ($1)", [value.map { .text($0) }])
            }
            return try connection.query("SELECT body FROM notes ORDER BY id").map { $0.string(0) }
        }
        #expect(stored == values)
        let tableCount = try on(connection) {
            try $0.query("SELECT count(*) FROM pg_tables WHERE tablename = $1", [.text("notes")]).first?.int(0)
        }
        #expect(tableCount == 1)
    }

    @Test("Typed values round-trip: integers, booleans, doubles, timestamps, column lookup by name")
    func typedValues() throws {
        let connection = try connect()
        let date = Date(timeIntervalSince1970: 1_790_000_000.123456)
        let row = try on(connection) {
            try $0.query(
                "SELECT $1::bigint AS big, $2::boolean AS flag, $3::float8 AS ratio, $4::timestamptz AS at, "
                    + "NULL::int AS nothing",
                [.int(Int64.min + 1), .bool(true), .double(0.1), .timestamp(date)]
            ).first
        }
        let unwrapped = try #require(row)
        #expect(unwrapped.int("big") == Int(Int64.min + 1))
        #expect(unwrapped.bool("flag") == true)
        #expect(unwrapped.double("ratio") == 0.1)
        let at = try #require(unwrapped.date("at"))
        #expect(abs(at.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.000_002)
        #expect(unwrapped.isNull("nothing"))
        #expect(unwrapped.int("nothing") == nil)
        #expect(unwrapped.column(named: "ratio") == 2)
        #expect(unwrapped.isNull("missing"))
    }

    @Test("bytea round trip of 1 MiB in binary format")
    func byteaRoundTrip() throws {
        let connection = try connect()
        var generator = SystemRandomNumberGenerator()
        let blob = (0..<(1 << 20)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let (length, back) = try on(connection) { connection -> (Int?, [UInt8]?) in
            try connection.query("CREATE TABLE blobs (id int PRIMARY KEY, data bytea NOT NULL)")
            try connection.query("INSERT INTO blobs VALUES ($1, $2)", [.int(1), .bytea(blob)])
            let row = try connection.query("SELECT octet_length(data), data FROM blobs WHERE id = $1", [.int(1)])
            return (row.first?.int(0), row.first?.bytes(1))
        }
        #expect(length == 1 << 20)
        #expect(back == blob)
        let empty = try on(connection) { try $0.query("SELECT $1::bytea", [.bytea([])]).first?.bytes(0) }
        #expect(empty == [])
    }

    @Test("A transaction rolls back when its body throws, commits when it returns")
    func transactionRollback() throws {
        struct Boom: Error {}
        let connection = try connect()
        let count = try on(connection) { connection -> Int? in
            try connection.query("CREATE TABLE items (name text)")
            #expect(throws: Boom.self) {
                try connection.transaction { connection in
                    try connection.query("INSERT INTO items VALUES ($1)", [.text("lost")])
                    throw Boom()
                }
            }
            #expect(!connection.isInTransaction)
            try connection.transaction { connection in
                try connection.query("INSERT INTO items VALUES ($1)", [.text("kept")])
                // A nested transaction is a savepoint: its failure does not abort the outer one.
                #expect(throws: Boom.self) {
                    try connection.transaction { connection in
                        try connection.query("INSERT INTO items VALUES ($1)", [.text("inner")])
                        throw Boom()
                    }
                }
            }
            return try connection.query("SELECT count(*) FROM items").first?.int(0)
        }
        #expect(count == 1)
    }

    @Test("A swallowed error inside a transaction makes COMMIT throw transactionAborted")
    func swallowedErrorAbortsCommit() throws {
        let connection = try connect()
        let error = try on(connection) { connection -> PostgresError? in
            do {
                try connection.transaction { connection in
                    _ = try? connection.query("SELECT 1/0")
                }
                return nil
            } catch let error as PostgresError {
                return error
            }
        }
        #expect(error?.kind == .transactionAborted)
        let alive = try on(connection) { try $0.query("SELECT 1").first?.int(0) }
        #expect(alive == 1)
    }

    @Test("A unique violation maps to isUniqueViolation, and the description is redacted")
    func uniqueViolation() throws {
        let connection = try connect()
        let secret = "alice-secret@example.com"
        let error = try on(connection) { connection -> PostgresError? in
            try connection.query("CREATE TABLE users (email text UNIQUE)")
            try connection.query("INSERT INTO users VALUES ($1)", [.text(secret)])
            do {
                try connection.query("INSERT INTO users VALUES ($1)", [.text(secret)])
                return nil
            } catch let error as PostgresError {
                return error
            }
        }
        let unwrapped = try #require(error)
        #expect(unwrapped.isUniqueViolation)
        #expect(unwrapped.sqlState == "23505")
        #expect(unwrapped.constraint == "users_email_key")
        #expect(!unwrapped.description.contains(secret))
        #expect(!unwrapped.description.contains("INSERT"))
        #expect(String(reflecting: unwrapped).contains("duplicate key"))
    }

    @Test("Prepared statements: explicit names and the per-connection cache keyed by SQL")
    func preparedStatements() throws {
        let connection = try connect()
        let (sum, cached) = try on(connection) { connection -> (Int, Int) in
            try connection.prepare(name: "add", sql: "SELECT $1::int + $2::int")
            let sum = try connection.execute(prepared: "add", [.int(2), .int(3)]).first?.int(0) ?? 0
            for value in 0..<5 {
                let echoed = try connection.execute(cached: "SELECT $1::int * 2", [.int(value)]).first?.int(0)
                #expect(echoed == value * 2)
            }
            try connection.execute(cached: "SELECT $1::text", [.text("other")])
            return (sum, connection.cachedStatementCount)
        }
        #expect(sum == 5)
        #expect(cached == 2)
    }

    @Test("A pipeline of 1,000 inserts returns 1,000 results in order")
    func pipelineInOrder() throws {
        let connection = try connect()
        let rows: [[PostgresData?]] = (0..<1000).map { [.int($0), .text("message \($0)")] }
        let (results, stored) = try on(connection) { connection -> ([PostgresRows], Int?) in
            try connection.query("CREATE TABLE messages (id bigserial PRIMARY KEY, seq int, body text)")
            let results = try connection.transaction { connection in
                try connection.pipeline(
                    sql: "INSERT INTO messages (seq, body) VALUES ($1, $2) RETURNING seq, body",
                    rows: rows
                )
            }
            return (results, try connection.query("SELECT count(*) FROM messages").first?.int(0))
        }
        #expect(results.count == 1000)
        #expect(results.map { $0.first?.int(0) } == (0..<1000).map { $0 })
        #expect(results[999].first?.string(1) == "message 999")
        #expect(stored == 1000)
    }

    @Test("A pipeline larger than the socket buffers in both directions does not deadlock")
    func largePipeline() throws {
        let connection = try connect()
        let body = String(repeating: "x", count: 16 * 1024)
        let rows: [[PostgresData?]] = (0..<1500).map { [.int($0), .text(body)] }
        let results = try on(connection) { connection -> [PostgresRows] in
            try connection.query("CREATE TABLE big (seq int, body text)")
            return try connection.pipeline(sql: "INSERT INTO big VALUES ($1, $2) RETURNING seq, body", rows: rows)
        }
        #expect(results.count == 1500)
        #expect(results.last?.first?.int(0) == 1499)
        #expect(results.allSatisfy { $0.first?.string(1)?.utf8.count == body.utf8.count })
    }

    @Test("An error mid-pipeline aborts the whole batch, inside or outside a transaction")
    func pipelineErrorAbortsBatch() throws {
        let connection = try connect()
        var rows: [[PostgresData?]] = (0..<300).map { [.int($0)] }
        rows[150] = [.int(0)]  // duplicate key
        let (insideError, outsideError, stored, alive) = try on(connection) {
            connection -> (PostgresError?, PostgresError?, Int?, Int?) in
            try connection.query("CREATE TABLE keys (k int PRIMARY KEY)")
            var insideError: PostgresError?
            do {
                try connection.transaction { connection in
                    try connection.query("INSERT INTO keys VALUES ($1)", [.int(-1)])
                    _ = try connection.pipeline(sql: "INSERT INTO keys VALUES ($1)", rows: rows)
                }
            } catch let error as PostgresError {
                insideError = error
            }
            var outsideError: PostgresError?
            do {
                _ = try connection.pipeline(sql: "INSERT INTO keys VALUES ($1)", rows: rows)
            } catch let error as PostgresError {
                outsideError = error
            }
            let stored = try connection.query("SELECT count(*) FROM keys").first?.int(0)
            let alive = try connection.query("SELECT 7").first?.int(0)
            return (insideError, outsideError, stored, alive)
        }
        #expect(insideError?.isUniqueViolation == true)
        #expect(outsideError?.isUniqueViolation == true)
        #expect(stored == 0)
        #expect(alive == 7)
    }

    @Test("NOTICEs go to the logger at debug level")
    func noticesGoToLogger() throws {
        let logs = CapturedLogs()
        let connection = try connect(logger: logs.logger())
        try on(connection) {
            try $0.executeScript("DO $$ BEGIN RAISE NOTICE 'hello from plpgsql'; END $$")
        }
        let notice = logs.entries.first { $0.metadata["postgres.notice.message"] == "hello from plpgsql" }
        #expect(notice?.level == .debug)
    }

    @Test("A connection whose backend was terminated resets and works again")
    func reconnectsAfterTermination() throws {
        let victim = try connect()
        let killer = try connect()
        let pid = try on(victim) { connection -> Int? in
            try connection.prepare(name: "answer", sql: "SELECT 42")
            return try connection.query("SELECT pg_backend_pid()").first?.int(0)
        }
        try on(killer) { try $0.query("SELECT pg_terminate_backend($1)", [.int(try #require(pid))]) }
        // Until the backend has exited (its socket closed), bounded: the victim's next use must find the connection
        // dead, not lose it in the middle of the query. The row leaves pg_stat_activity first, the process a moment
        // later (the test server is local: /proc; a zombie has closed its sockets).
        let backend = try #require(pid)
        let deadline = Date().addingTimeInterval(10)
        var gone = false
        while !gone && Date() < deadline {
            let rows = try on(killer) {
                try $0.query("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", [.int(backend)]).first?.int(0)
            }
            let stat = try? String(contentsOfFile: "/proc/\(backend)/stat", encoding: .utf8)
            gone = rows == 0 && (stat == nil || stat?.contains(") Z ") == true)
            if !gone { usleep(5_000) }
        }
        #expect(gone, "backend \(backend) still there")
        let (newPID, answer) = try on(victim) { connection -> (Int?, Int?) in
            (
                try connection.query("SELECT pg_backend_pid()").first?.int(0),
                try connection.execute(prepared: "answer").first?.int(0)
            )
        }
        #expect(newPID != nil && newPID != pid)
        #expect(answer == 42)
    }

    @Test("Connecting to a missing server fails with connectionFailed")
    func connectionFailure() {
        #expect {
            _ = try PostgresConnection(
                connectionString: "host=/nonexistent-switchboard-socket port=5999 connect_timeout=1",
                logger: quietLogger()
            )
        } throws: { error in
            (error as? PostgresError)?.kind == .connectionFailed
        }
    }
}
