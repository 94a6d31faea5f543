//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore
import Synchronization
import Testing

@testable import SwitchboardServer

/// Issue 21, item 6: the retention sweep against the real PostgreSQL, with an injected clock: "now" is a day of
/// 2001 and the fixtures carry explicit timestamps around it, so rows of other tests (written today, after every
/// cutoff here) are never removed, and counts are checked on this test's own rows.
@Suite("Retention sweep", .serialized)
struct RetentionTests {
    let db = EngineTestDatabase.shared

    /// Seconds since 1970 of a day in 2001 (every fixture is dated relative to it).
    static let base = Date(timeIntervalSince1970: 978_307_200)  // 2001-01-01
    static func day(_ n: Double) -> Date { base.addingTimeInterval(n * 86_400) }

    func settings(calls: Int = 0, tombstones: Int = 0, sessions: Int = 0, batch: Int = 2) -> RetentionSettings {
        var s = RetentionSettings()
        s.callRecordsDays = calls
        s.tombstonesDays = tombstones
        s.expiredSessionsDays = sessions
        s.batchSize = batch
        s.batchPause = 0
        return s
    }

    func sweep(_ settings: RetentionSettings, now: Date, metrics: ServerMetrics = ServerMetrics(loopCount: 1))
        async throws
        -> RetentionSweeper.Outcome
    {
        let sweeper = RetentionSweeper(
            settings: settings, pool: try db.pool, metrics: metrics, logger: testLogger(), now: { now })
        return await withCheckedContinuation { continuation in sweeper.sweep { continuation.resume(returning: $0) } }
    }

    func count(_ sql: String, _ params: [PostgresData?] = []) async throws -> Int64 {
        try await db.pool.withConnection { conn in try conn.execute(cached: sql, params).decodeFirst(Int64.self) ?? -1 }
    }

    /// Call records that ended before the cutoff go, in batches (5 rows, batches of 2); newer ones stay; the
    /// metric counts them.
    @Test func callRecordsOlderThanTheRetentionAreRemovedInBatches() async throws {
        let a = try await db.user("ret-caller")
        let b = try await db.user("ret-callee")
        let tag = "ret-\(UUID().uuidString.prefix(8))"
        try await db.pool.withConnection { conn in
            for (i, ended) in [1.0, 2, 3, 4, 5, 95, 99].enumerated() {
                try conn.execute(
                    cached: """
                        INSERT INTO calls (id, caller_id, callee_id, media, outcome, reason, started_at, ended_at)
                        VALUES ($1, $2, $3, 'voice', 'completed', 'hangup', $4, $4)
                        """, [.text("\(tag)-\(i)"), .int(a), .int(b), .timestamp(Self.day(ended))])
            }
        }
        let metrics = ServerMetrics(loopCount: 1)
        // Now: day 100, retention 90 days: the cutoff is day 10.
        let outcome = try await sweep(settings(calls: 90), now: Self.day(100), metrics: metrics)
        #expect(!outcome.failed && !outcome.lockBusy)
        #expect(outcome.callRecords >= 5)
        let left = try await count("SELECT count(*) FROM calls WHERE id LIKE $1", [.text("\(tag)-%")])
        #expect(left == 2)
        let text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(text.contains("switchboard_retention_rows_removed_total{kind=\"call_records\"} \(outcome.callRecords)"))
        #expect(text.contains("switchboard_retention_sweeps_total{result=\"done\"} 1"))
        // 0 days keeps them forever.
        let forever = try await sweep(settings(calls: 0), now: Self.day(100_000))
        #expect(forever == RetentionSweeper.Outcome())
        #expect(try await count("SELECT count(*) FROM calls WHERE id LIKE $1", [.text("\(tag)-%")]) == 2)
    }

    /// Revoked sessions older than the retention go; live sessions (however old) and recently revoked ones stay.
    @Test func revokedSessionsOlderThanTheRetentionAreRemoved() async throws {
        let user = try await db.user("ret-sessions")
        let ids: [Int64] = try await db.pool.withConnection { conn in
            var ids: [Int64] = []
            for (i, revoked) in [Date?.some(Self.day(1)), Self.day(2), Self.day(80), nil].enumerated() {
                let id = try conn.execute(
                    cached: """
                        INSERT INTO sessions (user_id, token_hash, device, created_at, last_seen_at, revoked_at)
                        VALUES ($1, $2, 'd', $3, $3, $4) RETURNING id
                        """,
                    [
                        .int(user), .bytea(Array(UUID().uuidString.utf8) + [UInt8(i)]), .timestamp(Self.day(0)),
                        revoked.map { .timestamp($0) },
                    ]
                ).decodeFirst(Int64.self)
                ids.append(id ?? -1)
            }
            return ids
        }
        let outcome = try await sweep(settings(sessions: 30), now: Self.day(100))
        #expect(outcome.revokedSessions >= 2)
        let left = try await db.pool.withConnection { conn in
            try conn.execute(cached: "SELECT id FROM sessions WHERE user_id = $1 ORDER BY id", [.int(user)]).map {
                try $0.decode(Int64.self, column: 0)
            }
        }
        #expect(left == [ids[2], ids[3]])
    }

    /// A tombstone (a message deleted for everyone) older than the retention keeps its place (seq, kind,
    /// sender, times) and loses its leftovers: client id, voice clip reference and the clip's audio when no other
    /// message uses it, reactions; a hidden mark stays (what someone hid stays hidden). Live messages and recent
    /// tombstones keep everything, and the conversation's seqs stay gapless.
    @Test func oldTombstonesLoseTheirLeftoversAndKeepTheirPlace() async throws {
        let ann = try await db.user("ret-ann")
        let bob = try await db.user("ret-bob")
        let fixture = try await db.pool.withConnection {
            conn -> (conversation: Int64, clip: Int64, sharedClip: Int64, messages: [Int64]) in
            let conversation =
                try conn.execute(
                    cached:
                        "INSERT INTO conversations (kind, name, created_by) VALUES ('group', 'ret', $1) RETURNING id",
                    [.int(ann)]
                ).decodeFirst(Int64.self) ?? -1
            func clip(_ tag: String) throws -> Int64 {
                try conn.execute(
                    cached: """
                        INSERT INTO voice_clips (uploader_id, sha256, audio, duration_ms, waveform, size)
                        VALUES ($1, $2, $3, 1000, $3, 3) RETURNING id
                        """, [.int(ann), .bytea(Array("\(tag)\(UUID().uuidString)".utf8)), .bytea([1, 2, 3])]
                ).decodeFirst(Int64.self) ?? -1
            }
            let own = try clip("own")
            let shared = try clip("shared")
            // seq 1: old tombstone with a clip of its own, a reaction and a hidden mark; seq 2: old tombstone whose
            // clip another (live) message also uses; seq 3: a live message; seq 4: a recent tombstone.
            let rows: [(deleted: Date?, voice: Int64?, body: String?)] = [
                (Self.day(5), own, nil), (Self.day(6), shared, nil), (nil, shared, nil), (Self.day(95), nil, nil),
            ]
            var messages: [Int64] = []
            for (i, row) in rows.enumerated() {
                let id =
                    try conn.execute(
                        cached: """
                            INSERT INTO messages
                              (conversation_id, seq, sender_id, kind, body, client_id, created_at, deleted_at, voice_id)
                            VALUES ($1, $2, $3, 'voice', $4, $5, $6, $7, $8) RETURNING id
                            """,
                        [
                            .int(conversation), .int(Int64(i + 1)), .int(ann), row.body.map { .text($0) },
                            .text("c\(i)"),
                            .timestamp(Self.day(1)), row.deleted.map { .timestamp($0) }, row.voice.map { .int($0) },
                        ]
                    ).decodeFirst(Int64.self) ?? -1
                messages.append(id)
                try conn.execute(
                    cached: "INSERT INTO message_reactions (message_id, user_id, emoji) VALUES ($1, $2, '👍')",
                    [.int(id), .int(bob)])
                try conn.execute(
                    cached: "INSERT INTO hidden_messages (user_id, message_id) VALUES ($1, $2)", [.int(bob), .int(id)])
            }
            try conn.execute(cached: "UPDATE conversations SET last_seq = 4 WHERE id = $1", [.int(conversation)])
            return (conversation, own, shared, messages)
        }
        let metrics = ServerMetrics(loopCount: 1)
        let outcome = try await sweep(settings(tombstones: 30, batch: 1), now: Self.day(100), metrics: metrics)
        #expect(!outcome.failed && !outcome.lockBusy)
        #expect(outcome.tombstones >= 2)
        let m = fixture.messages
        func leftovers(_ id: Int64) async throws -> [Int64] {
            [
                try await count(
                    "SELECT count(*) FROM messages WHERE id = $1 AND (client_id IS NOT NULL OR voice_id IS NOT NULL)",
                    [.int(id)]),
                try await count("SELECT count(*) FROM message_reactions WHERE message_id = $1", [.int(id)]),
                try await count("SELECT count(*) FROM hidden_messages WHERE message_id = $1", [.int(id)]),
            ]
        }
        #expect(try await leftovers(m[0]) == [0, 0, 1])
        #expect(try await leftovers(m[1]) == [0, 0, 1])
        #expect(try await leftovers(m[2]) == [1, 1, 1])  // live
        #expect(try await leftovers(m[3]) == [1, 1, 1])  // deleted 5 days before "now": kept
        // The tombstone's own clip is gone; the clip a live message still uses stays.
        #expect(try await count("SELECT count(*) FROM voice_clips WHERE id = $1", [.int(fixture.clip)]) == 0)
        #expect(try await count("SELECT count(*) FROM voice_clips WHERE id = $1", [.int(fixture.sharedClip)]) == 1)
        // Every message keeps its place: seqs 1...4, tombstones still deleted, with their sender.
        let seqs = try await db.pool.withConnection { conn in
            try conn.execute(
                cached: "SELECT seq, deleted_at IS NOT NULL, sender_id FROM messages"
                    + " WHERE conversation_id = $1 ORDER BY seq",
                [.int(fixture.conversation)]
            ).map {
                (
                    try $0.decode(Int64.self, column: 0), try $0.decode(Bool.self, column: 1),
                    try $0.decode(Int64?.self, column: 2)
                )
            }
        }
        #expect(seqs.map(\.0) == [1, 2, 3, 4])
        #expect(seqs.map(\.1) == [true, true, false, true])
        #expect(seqs.allSatisfy { $0.2 == ann })
        let text = String(decoding: metrics.render(), as: UTF8.self)
        #expect(text.contains("switchboard_retention_tombstones_purged_total \(outcome.tombstones)"))
        // 2 reactions + 1 clip of this fixture at least.
        #expect(outcome.tombstoneRows >= 3)
        // Purged tombstones are marked and leave the purge's index; the recent one waits in it.
        let purged = try await db.pool.withConnection { conn in
            try conn.execute(
                cached: "SELECT tombstone_purged FROM messages WHERE conversation_id = $1 ORDER BY seq",
                [.int(fixture.conversation)]
            ).map { try $0.decode(Bool.self, column: 0) }
        }
        #expect(purged == [true, true, false, false])
        // The purge's query can be answered from the partial index alone (with sequential scans off the planner
        // uses it only if the query's conditions imply the index's predicate).
        let plan = try await db.pool.withConnection { conn in
            try conn.execute(cached: "SET enable_seqscan = off")
            defer { _ = try? conn.execute(cached: "RESET enable_seqscan") }
            return try conn.execute(
                cached: """
                    EXPLAIN SELECT id FROM messages
                    WHERE deleted_at IS NOT NULL AND NOT tombstone_purged AND deleted_at < $1
                    ORDER BY deleted_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
                    """, [.timestamp(Self.day(100)), .int(500)]
            ).map { try $0.decode(String.self, column: 0) }.joined(separator: "\n")
        }
        #expect(plan.contains("messages_tombstones_to_purge"), "\(plan)")
        // A second sweep finds nothing more of this fixture to purge.
        _ = try await sweep(settings(tombstones: 30, batch: 1), now: Self.day(100), metrics: metrics)
        #expect(try await leftovers(m[3]) == [1, 1, 1])
        #expect(try await count("SELECT count(*) FROM voice_clips WHERE id = $1", [.int(fixture.sharedClip)]) == 1)
    }

    /// One node at a time: while another session holds the advisory lock, a sweep removes nothing and says so;
    /// once it is released, the sweep does its work.
    @Test func aSweepYieldsToTheNodeHoldingTheAdvisoryLock() async throws {
        let a = try await db.user("ret-lock-a")
        let b = try await db.user("ret-lock-b")
        let id = "ret-lock-\(UUID().uuidString.prefix(8))"
        try await db.pool.withConnection { conn in
            try conn.execute(
                cached: """
                    INSERT INTO calls (id, caller_id, callee_id, media, outcome, reason, started_at, ended_at)
                    VALUES ($1, $2, $3, 'voice', 'completed', 'hangup', $4, $4)
                    """, [.text(id), .int(a), .int(b), .timestamp(Self.day(1))])
        }
        // "Another node": its own connection holding the lock (session level) until released.
        let queue = DispatchQueue(label: "retention-test.other-node")
        let other = try PostgresConnection(connectionString: try connectionString(), queue: queue, logger: testLogger())
        defer { queue.sync { other.close() } }
        _ = try queue.sync {
            try other.query("SELECT pg_advisory_lock($1)", [.int(RetentionRepository.advisoryLockKey)])
        }
        let metrics = ServerMetrics(loopCount: 1)
        let blocked = try await sweep(settings(calls: 30), now: Self.day(100), metrics: metrics)
        #expect(blocked.lockBusy)
        #expect(
            String(decoding: metrics.render(), as: UTF8.self).contains(
                "switchboard_retention_sweeps_total{result=\"lock_busy\"} 1"))
        #expect(blocked.callRecords == 0)
        #expect(try await count("SELECT count(*) FROM calls WHERE id = $1", [.text(id)]) == 1)
        _ = try queue.sync {
            try other.query("SELECT pg_advisory_unlock($1)", [.int(RetentionRepository.advisoryLockKey)])
        }
        let done = try await sweep(settings(calls: 30), now: Self.day(100))
        #expect(!done.lockBusy)
        #expect(try await count("SELECT count(*) FROM calls WHERE id = $1", [.text(id)]) == 0)
    }

    func connectionString() throws -> String {
        if let url = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_DATABASE_URL"], !url.isEmpty { return url }
        if let embedded = db.database?.embedded { return embedded.connectionString() }
        throw EngineTestError.noDatabase(db.error ?? "no database")
    }
}
