//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of friendships: the one friendship check (single and batch) and the friend lists.
public enum FriendRepository {
    /// An unordered pair of users (`low < high` as stored in `friendships`).
    public struct Pair: Hashable, Sendable {
        public let low: Int64
        public let high: Int64
        public init(_ a: Int64, _ b: Int64) {
            low = min(a, b)
            high = max(a, b)
        }
    }

    /// Whether `a` and `b` are friends.
    public static func areFriends(_ db: PostgresConnection, _ a: Int64, _ b: Int64) throws -> Bool {
        !(try db.execute(
            cached: "SELECT 1 FROM friendships WHERE user_low = $1 AND user_high = $2",
            [.int(min(a, b)), .int(max(a, b))]
        ).isEmpty)
    }

    /// Which of these unordered pairs are friends (one query).
    public static func areFriends(_ db: PostgresConnection, pairs: Set<Pair>) throws -> Set<Pair> {
        guard !pairs.isEmpty else { return [] }
        let list = Array(pairs)
        let rows = try db.execute(
            cached: """
                SELECT f.user_low, f.user_high FROM friendships f
                JOIN unnest($1::bigint[], $2::bigint[]) AS p(l, h) ON f.user_low = p.l AND f.user_high = p.h
                """, [.text(bigintArray(list.map(\.low))), .text(bigintArray(list.map(\.high)))])
        var result = Set<Pair>()
        for r in rows { result.insert(Pair(try r.decode(Int64.self, column: 0), try r.decode(Int64.self, column: 1))) }
        return result
    }

    /// Makes `a` and `b` friends (no-op when they are).
    public static func insert(_ db: PostgresConnection, _ a: Int64, _ b: Int64) throws {
        try db.execute(
            cached: "INSERT INTO friendships (user_low, user_high) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            [.int(min(a, b)), .int(max(a, b))])
    }

    /// Ends the friendship of `a` and `b`; whether there was one.
    public static func delete(_ db: PostgresConnection, _ a: Int64, _ b: Int64) throws -> Bool {
        try db.execute(
            cached: "DELETE FROM friendships WHERE user_low = $1 AND user_high = $2",
            [.int(min(a, b)), .int(max(a, b))]
        ).affectedRows == 1
    }

    /// `user`'s friends in alphabetical order of display name (case-insensitive), then user id.
    public static func friends(_ db: PostgresConnection, of user: Int64) throws -> [Friend] {
        try db.execute(
            cached: """
                SELECT u.id, u.display_name, u.avatar_photo_id FROM friendships f
                JOIN users u ON u.id = CASE WHEN f.user_low = $1 THEN f.user_high ELSE f.user_low END
                WHERE f.user_low = $1 OR f.user_high = $1
                ORDER BY lower(u.display_name), u.id
                """, [.int(user)]
        ).decode(Friend.self)
    }

    /// `user`'s friends' ids with their stored last-seen time (wire format; nil when never seen).
    public static func friendsLastSeen(_ db: PostgresConnection, of user: Int64) throws -> [(
        userId: Int64, lastSeen: String?
    )] {
        try db.execute(
            cached: """
                SELECT u.id, \(WireTimestamp.sql("u.last_seen_at")) FROM friendships f
                JOIN users u ON u.id = CASE WHEN f.user_low = $1 THEN f.user_high ELSE f.user_low END
                WHERE f.user_low = $1 OR f.user_high = $1
                """, [.int(user)]
        ).map { (try $0.decode(Int64.self, column: 0), try $0.decode(String?.self, column: 1)) }
    }

    /// A `bigint[]` literal.
    static func bigintArray(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }
}

extension Friend: PostgresRowDecodable {
    /// Columns: id, display_name, and avatar_photo_id when the query has a third column.
    public init(row: PostgresRow) throws(PostgresDecodingError) {
        self.init(
            userId: try row.decode(column: 0), displayName: try row.decode(column: 1),
            avatarPhotoId: row.columns.count > 2 ? try row.decode(column: 2) : nil)
    }
}
