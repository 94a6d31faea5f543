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

/// The SQL of the sessions table.
public enum SessionRepository {
    /// Opens a session; its id.
    public static func insert(_ db: PostgresConnection, userId: Int64, tokenHash: [UInt8], device: String) throws
        -> Int64?
    {
        try db.execute(
            cached: "INSERT INTO sessions (user_id, token_hash, device) VALUES ($1, $2, $3) RETURNING id",
            [.int(userId), .bytea(tokenHash), .text(device)]
        ).decodeFirst(Int64.self)
    }

    /// The live session with this token hash and its user (touching its last-seen time), or nil.
    public static func authenticate(_ db: PostgresConnection, tokenHash: [UInt8]) throws -> (Identity, Profile)? {
        guard
            let r = try db.execute(
                cached: """
                    UPDATE sessions s SET last_seen_at = now() FROM users u
                    WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND u.id = s.user_id
                    RETURNING s.id, u.id, u.display_name, u.phone, u.time_zone, u.locale
                    """, [.bytea(tokenHash)]
            ).first
        else { return nil }
        let uid = try r.decode(Int64.self, column: 1)
        // One's own profile carries the zone and locale, as `profile.get` does (`UTC`, `en-US` when never set).
        return (
            Identity(userId: uid, sessionId: try r.decode(column: 0)),
            Profile(
                userId: uid, displayName: try r.decode(column: 2), phone: try r.decode(column: 3),
                timeZone: try r.decode(String?.self, column: 4) ?? "UTC",
                locale: try r.decode(String?.self, column: 5) ?? "en-US")
        )
    }

    /// Whether a session is still good for its connection, read again after the connection was registered: its
    /// revocation, its account's deletion and suspension (nil: no such session any more).
    public static func standing(_ db: PostgresConnection, sessionId: Int64) throws -> (
        revoked: Bool, deleted: Bool, suspended: Bool
    )? {
        guard
            let r = try db.execute(
                cached: """
                    SELECT s.revoked_at IS NOT NULL, u.deleted_at IS NOT NULL, u.suspended_at IS NOT NULL
                    FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id = $1
                    """, [.int(sessionId)]
            ).first
        else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1), try r.decode(column: 2))
    }

    /// Revokes one of the user's live sessions; whether there was one.
    public static func revoke(_ db: PostgresConnection, sessionId: Int64, of userId: Int64) throws -> Bool {
        try db.execute(
            cached: "UPDATE sessions SET revoked_at = now() WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL",
            [.int(sessionId), .int(userId)]
        ).affectedRows == 1
    }

    /// Revokes every live session of the user (`password.reset`); the ids revoked.
    public static func revokeAll(_ db: PostgresConnection, of userId: Int64) throws -> [Int64] {
        try db.execute(
            cached: "UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id",
            [.int(userId)]
        ).map { r in try r.decode(Int64.self, column: 0) }
    }

    /// The user's live sessions, newest first (`current` marks `currentSessionId`).
    public static func list(_ db: PostgresConnection, of userId: Int64, currentSessionId: Int64) throws -> [SessionInfo]
    {
        try db.execute(
            cached: """
                SELECT id, device, \(WireTimestamp.sql("created_at")), \(WireTimestamp.sql("last_seen_at"))
                FROM sessions WHERE user_id = $1 AND revoked_at IS NULL ORDER BY id DESC
                """, [.int(userId)]
        ).map { r in
            let sessionId = try r.decode(Int64.self, column: 0)
            return SessionInfo(
                sessionId: sessionId, device: try r.decode(column: 1), createdAt: try r.decode(column: 2),
                lastSeenAt: try r.decode(column: 3), current: sessionId == currentSessionId)
        }
    }
}
