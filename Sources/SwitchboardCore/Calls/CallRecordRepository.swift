//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of the calls table: one row per ended call, and the history read back from it.
public enum CallRecordRepository {
    /// Stores an ended call (a second store of the same id is ignored). Times are kept to the millisecond, as
    /// they go out on the wire, so that an `ended_at` read back is an exact `call.history` cursor.
    public static func insert(
        _ db: PostgresConnection, callId: String, caller: Int64, callee: Int64, media: String, outcome: String,
        reason: String,
        startedAt: Date, answeredAt: Date?, endedAt: Date, durationMs: Int64
    ) throws {
        // Committed without waiting for the WAL flush (`synchronous_commit` off for this transaction only): the
        // row is visible to every session as soon as the commit returns, which is all `call.ended` waits for (a
        // `call.history` sent on receiving it lists the call). Nothing a client was told is acknowledged by this
        // row (the hang-up or decline was answered before it), and the call's system message in the chat is
        // stored durably by its conversation's writer. A crash within PostgreSQL's `wal_writer_delay` (0.2 s) of
        // the commit may lose the row. Waiting for the flush (2-3 ms on the test machine's disk, more behind other
        // commits) put the ended call's notice over its budget (5 ms p50, 20 ms p99: issue 17).
        try db.transaction { db in
            try db.executeScript("SET LOCAL synchronous_commit TO off")
            try db.execute(
                cached: """
                    INSERT INTO calls (
                        id, caller_id, callee_id, media, outcome, reason, started_at, answered_at, ended_at,
                        duration_ms)
                    VALUES ($1, $2, $3, $4, $5, $6, date_trunc('milliseconds', $7::timestamptz),
                      date_trunc('milliseconds', $8::timestamptz), date_trunc('milliseconds', $9::timestamptz), $10)
                    ON CONFLICT (id) DO NOTHING
                    """,
                [
                    .text(callId), .int(caller), .int(callee), .text(media), .text(outcome), .text(reason),
                    .timestamp(startedAt), answeredAt.map { .timestamp($0) }, .timestamp(endedAt), .int(durationMs),
                ])
        }
    }

    /// `user`'s calls, most recently ended first, ended before `before` (any `timestamptz` text), at most `limit`.
    /// - Throws: `CallsError.badHistoryCursor` when PostgreSQL refuses `before` (a data exception, class 22).
    public static func history(
        _ db: PostgresConnection, of user: Int64, before: String?, limit: Int
    ) throws -> [CallHistoryEntry] {
        do {
            return try db.execute(
                cached: """
                    SELECT id, caller_id, callee_id, media, outcome, reason,
                      \(WireTimestamp.sql("started_at")), \(WireTimestamp.sql("answered_at")),
                      \(WireTimestamp.sql("ended_at")), duration_ms
                    FROM calls WHERE (caller_id = $1 OR callee_id = $1)
                      AND ($2::timestamptz IS NULL OR ended_at < $2::timestamptz)
                    ORDER BY ended_at DESC LIMIT $3
                    """, [.int(user), before.map { .text($0) }, .int(Int64(limit))]
            ).decode(CallHistoryEntry.self)
        } catch let error as PostgresError where before != nil && error.sqlState?.hasPrefix("22") == true {
            throw CallsError.badHistoryCursor
        }
    }
}

/// A row of `CallRecordRepository.history` is a `call.history` entry as it goes on the wire (timestamps
/// already in the wire format).
extension CallHistoryEntry: PostgresRowDecodable {
    /// Columns as in `CallRecordRepository.history`.
    public init(row: PostgresRow) throws(PostgresDecodingError) {
        self.init(
            callId: try row.decode(column: 0), callerId: try row.decode(column: 1), calleeId: try row.decode(column: 2),
            media: try row.decode(column: 3), outcome: try row.decode(column: 4), reason: try row.decode(column: 5),
            startedAt: try row.decode(column: 6), answeredAt: try row.decode(column: 7),
            endedAt: try row.decode(column: 8),
            durationMs: try row.decode(column: 9))
    }
}
