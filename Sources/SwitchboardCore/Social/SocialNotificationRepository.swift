//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of social notifications (table `social_notifications`, migration 11): one row per (user, kind, actor,
/// post), so a like undone and done again notifies once. Unread = rows with an id above `users.social_read_id`.
/// Every function takes the connection it runs on; none opens a transaction of its own.
public enum SocialNotifications {
    /// Inside the caller's transaction. Inserts one row unless it exists (UNIQUE user, kind, actor, post) or the
    /// recipient is the actor, blocks/is blocked by the actor, or mutes the actor. Returns the new row's id, or nil.
    /// After the commit the caller publishes `SocialChange.notified` (the live `notification` event).
    public static func record(
        _ db: PostgresConnection, userId: Int64, kind: SocialNotificationKind, actorId: Int64, postId: Int64?
    ) throws -> Int64? {
        guard userId != actorId else { return nil }
        return try db.execute(
            cached: """
                INSERT INTO social_notifications (user_id, kind, actor_id, post_id)
                SELECT $1::bigint, $2, $3::bigint, $4::bigint
                WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = $1::bigint AND blocked_id = $3::bigint)
                                                        OR (blocker_id = $3::bigint AND blocked_id = $1::bigint))
                  AND NOT EXISTS (SELECT 1 FROM mutes WHERE muter_id = $1::bigint AND muted_id = $3::bigint)
                ON CONFLICT DO NOTHING
                RETURNING id
                """,
            [.int(userId), .text(kind.rawValue), .int(actorId), postId.map { .int($0) }]
        ).decodeFirst(Int64.self)
    }

    /// The number of unread notifications of `userId` (ids above its `social_read_id`), not counting those from
    /// users it blocks, is blocked by, or mutes now.
    public static func unread(_ db: PostgresConnection, userId: Int64) throws -> Int64 {
        try db.execute(
            cached: """
                SELECT count(*) FROM social_notifications n JOIN users u ON u.id = n.user_id
                WHERE n.user_id = $1 AND n.id > u.social_read_id AND \(visibleActor)
                """, [.int(userId)]
        ).decodeFirst(Int64.self) ?? 0
    }

    /// Moves `userId`'s read marker forward to `upTo` (nil: its newest notification); never backwards. Returns the
    /// marker after the call.
    public static func markRead(_ db: PostgresConnection, userId: Int64, upTo: Int64?) throws -> Int64 {
        let target: Int64
        if let upTo {
            target = upTo
        } else {
            target =
                try db.execute(
                    cached: "SELECT coalesce(max(id), 0) FROM social_notifications WHERE user_id = $1", [.int(userId)]
                )
                .decodeFirst(Int64.self) ?? 0
        }
        return try db.execute(
            cached:
                "UPDATE users SET social_read_id = greatest(social_read_id, $2) WHERE id = $1 RETURNING social_read_id",
            [.int(userId), .int(target)]
        ).decodeFirst(Int64.self) ?? 0
    }

    /// One stored notification.
    public struct Row: Sendable, Equatable, PostgresRowDecodable {
        public var id: Int64
        public var kind: SocialNotificationKind
        public var actorId: Int64
        public var postId: Int64?
        /// `WireTimestamp` text.
        public var createdAt: String
        /// Whether its id is above the user's read marker.
        public var unread: Bool

        public init(row: PostgresRow) throws(PostgresDecodingError) {
            id = try row.decode(column: 0)
            kind = try row.decode(column: 1)
            actorId = try row.decode(column: 2)
            postId = try row.decode(column: 3)
            createdAt = try row.decode(column: 4)
            unread = try row.decode(column: 5)
        }
    }

    /// The actor is not blocked either way nor muted by the recipient, and its post not deleted (`n` the notification).
    static let visibleActor = """
        (n.post_id IS NULL OR EXISTS (SELECT 1 FROM posts p WHERE p.id = n.post_id AND p.deleted_at IS NULL))
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = n.user_id AND b.blocked_id = n.actor_id)
                                             OR (b.blocker_id = n.actor_id AND b.blocked_id = n.user_id))
        AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.muter_id = n.user_id AND m.muted_id = n.actor_id)
        """

    /// One notification by id, for its recipient (nil when gone or its actor is now blocked/muted).
    public static func notification(_ db: PostgresConnection, userId: Int64, id: Int64) throws -> Row? {
        try db.execute(
            cached: """
                SELECT n.id, n.kind, n.actor_id, n.post_id, \(WireTimestamp.sql("n.created_at")),
                       n.id > u.social_read_id
                FROM social_notifications n JOIN users u ON u.id = n.user_id
                WHERE n.id = $2 AND n.user_id = $1 AND \(visibleActor)
                """, [.int(userId), .int(id)]
        ).decodeFirst(Row.self)
    }

    /// `userId`'s notifications with an id below `before` (nil: from the newest), newest first, at most `limit`.
    public static func page(_ db: PostgresConnection, userId: Int64, before: Int64?, limit: Int) throws -> [Row] {
        try db.execute(
            cached: """
                SELECT n.id, n.kind, n.actor_id, n.post_id, \(WireTimestamp.sql("n.created_at")),
                       n.id > u.social_read_id
                FROM social_notifications n JOIN users u ON u.id = n.user_id
                WHERE n.user_id = $1 AND n.id < $2 AND \(visibleActor)
                ORDER BY n.id DESC LIMIT $3
                """, [.int(userId), .int(before ?? Int64.max), .int(Int64(limit))]
        ).decode(Row.self)
    }
}
