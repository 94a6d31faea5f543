//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of the calls table: one row per ended call, and the history read back from it.
public enum CallRecordRepository {
    /// Stores an ended call (a second store of the same id is ignored). Times are kept to the millisecond, as
    /// they go out on the wire, so that an `ended_at` read back is an exact `call.history` cursor.
    public static func insert(
        _ db: PostgresConnection, callId: String, caller: Int64, callee: Int64, media: String, outcome: String, reason: String,
        startedAt: Date, answeredAt: Date?, endedAt: Date, durationMs: Int64
    ) throws {
        try db.execute(
            cached: """
                INSERT INTO calls (id, caller_id, callee_id, media, outcome, reason, started_at, answered_at, ended_at, duration_ms)
                VALUES ($1, $2, $3, $4, $5, $6, date_trunc('milliseconds', $7::timestamptz), date_trunc('milliseconds', $8::timestamptz),
                  date_trunc('milliseconds', $9::timestamptz), $10)
                ON CONFLICT (id) DO NOTHING
                """,
            [
                .text(callId), .int(caller), .int(callee), .text(media), .text(outcome), .text(reason),
                .timestamp(startedAt), answeredAt.map { .timestamp($0) }, .timestamp(endedAt), .int(durationMs),
            ])
    }

    /// `user`'s calls, most recently ended first, ended before `before` (any `timestamptz` text; a malformed one
    /// is a PostgreSQL data exception, class 22), at most `limit`.
    public static func history(_ db: PostgresConnection, of user: Int64, before: String?, limit: Int) throws -> [CallHistoryEntry] {
        try db.execute(
            cached: """
                SELECT id, caller_id, callee_id, media, outcome, reason,
                  \(WireTimestamp.sql("started_at")), \(WireTimestamp.sql("answered_at")), \(WireTimestamp.sql("ended_at")), duration_ms
                FROM calls WHERE (caller_id = $1 OR callee_id = $1)
                  AND ($2::timestamptz IS NULL OR ended_at < $2::timestamptz)
                ORDER BY ended_at DESC LIMIT $3
                """, [.int(user), before.map { .text($0) }, .int(Int64(limit))]
        ).decode(CallHistoryEntry.self)
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
            startedAt: try row.decode(column: 6), answeredAt: try row.decode(column: 7), endedAt: try row.decode(column: 8),
            durationMs: try row.decode(column: 9))
    }
}
