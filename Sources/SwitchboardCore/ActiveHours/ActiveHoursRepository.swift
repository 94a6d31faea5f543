//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
public import SwitchboardDomain
public import SwitchboardStore

/// The SQL of active-hours statistics (table `active_hours`, migration 10). Every function takes the connection it
/// runs on; none opens a transaction of its own.
public enum ActiveHoursRepository {
    /// What a statistics read needs to know about a user.
    public struct Subject: Sendable, Equatable {
        /// The stored IANA zone (nil: UTC).
        public var timeZone: String?
        /// Registration instant.
        public var registeredAt: Date
    }

    /// A live user's zone and registration instant; nil when there is no such live user.
    public static func subject(_ db: PostgresConnection, userId: Int64) throws -> Subject? {
        guard
            let r = try db.execute(
                cached: """
                    SELECT time_zone, extract(epoch FROM created_at)::float8 FROM users
                    WHERE id = $1 AND deleted_at IS NULL
                    """,
                [.int(userId)]
            ).first
        else { return nil }
        return Subject(
            timeZone: try r.decode(column: 0),
            registeredAt: Date(timeIntervalSince1970: try r.decode(Double.self, column: 1)))
    }

    /// Stored zones of these live users (nil value: UTC); deleted or missing users are absent.
    public static func zones(_ db: PostgresConnection, of users: [Int64]) throws -> [Int64: String?] {
        var out: [Int64: String?] = [:]
        for r in try db.execute(
            cached: "SELECT id, time_zone FROM users WHERE id = ANY($1::bigint[]) AND deleted_at IS NULL",
            [.text(MessageStore.bigintArray(users.map { Optional($0) }))])
        {
            out[try r.decode(Int64.self, column: 0)] = .some(try r.decode(String?.self, column: 1))
        }
        return out
    }

    /// Records connected intervals: each split at local hours in its user's zone in force now (read here), then
    /// united with what is stored (one statement). Intervals of deleted users are skipped. Returns the hour rows
    /// written.
    @discardableResult
    public static func record(_ db: PostgresConnection, _ intervals: [ActiveInterval]) throws -> Int {
        guard !intervals.isEmpty else { return 0 }
        let zones = try zones(db, of: Array(Set(intervals.map(\.userId))))
        var rows: [Int64: ActiveHoursAccumulator] = [:]
        for interval in intervals {
            guard let zone = zones[interval.userId] else { continue }
            rows[interval.userId, default: ActiveHoursAccumulator()].add(
                from: interval.from, to: interval.to, zone: ActiveHoursCalendar.zone(zone))
        }
        var users: [Int64?] = []
        var days: [String?] = []
        var hours: [Int64?] = []
        var starts: [Int64?] = []
        var spans: [String?] = []
        for (user, accumulator) in rows {
            for (hour, set) in accumulator.hours where set.total > 0 {
                users.append(user)
                days.append(hour.day)
                hours.append(Int64(hour.hour))
                starts.append(Int64(hour.start))
                spans.append(set.sqlLiteral)
            }
        }
        guard !users.isEmpty else { return 0 }
        try db.execute(
            cached: """
                INSERT INTO active_hours (user_id, day, hour, hour_start, spans)
                SELECT x.u, x.d, x.h, x.t, x.s::int4multirange
                FROM unnest($1::bigint[], $2::date[], $3::smallint[], $4::bigint[], $5::text[]) AS x(u, d, h, t, s)
                JOIN users ON users.id = x.u AND users.deleted_at IS NULL
                ON CONFLICT (user_id, day, hour, hour_start) DO UPDATE SET spans = active_hours.spans + EXCLUDED.spans
                """,
            [
                .text(MessageStore.bigintArray(users)), .text(MessageStore.textArray(days)),
                .text(MessageStore.bigintArray(hours)),
                .text(MessageStore.bigintArray(starts)), .text(MessageStore.textArray(spans)),
            ])
        return users.count
    }

    /// The stored spans of a user's dates `from ... to` (inclusive), into `accumulator`.
    public static func load(
        _ db: PostgresConnection, userId: Int64, from: String, to: String,
        into accumulator: inout ActiveHoursAccumulator
    ) throws {
        for r in try db.execute(
            cached: """
                SELECT day::text, hour, hour_start, spans::text FROM active_hours
                WHERE user_id = $1 AND day BETWEEN $2::date AND $3::date
                """,
            [.int(userId), .text(from), .text(to)])
        {
            guard let spans = SecondSpans(sqlLiteral: try r.decode(String.self, column: 3)) else { continue }
            let hour = LocalHour(
                day: try r.decode(column: 0), hour: Int(try r.decode(Int64.self, column: 1)),
                start: Int(try r.decode(Int64.self, column: 2)))
            accumulator.add(hour, spans)
        }
    }

    /// A user's whole series, seconds per date (the account export).
    public static func series(_ db: PostgresConnection, userId: Int64) throws -> [(day: String, seconds: Int64)] {
        try db.execute(
            cached: """
                SELECT a.day::text, sum(upper(r) - lower(r))::bigint FROM active_hours a, unnest(a.spans) r
                WHERE a.user_id = $1 GROUP BY a.day ORDER BY a.day
                """, [.int(userId)]
        ).map { (try $0.decode(String.self, column: 0), try $0.decode(Int64.self, column: 1)) }
    }

    /// Deletes up to `limit` of a user's rows (account deletion); the number deleted.
    public static func deleteBatch(_ db: PostgresConnection, userId: Int64, limit: Int) throws -> Int {
        try db.execute(
            cached: """
                DELETE FROM active_hours WHERE (user_id, day, hour, hour_start) IN
                (SELECT user_id, day, hour, hour_start FROM active_hours WHERE user_id = $1 LIMIT $2)
                """, [.int(userId), .int(Int64(limit))]
        ).affectedRows
    }
}
