//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
public import SwitchboardStore

/// The SQL of account deletion (`account_deletions`, the steps) and of the stub left behind.
public enum AccountDeletionRepository {
    /// Starts a deletion in one transaction: locks the user's row, inserts the job row, replaces the phone number
    /// (so it can register again at once), blanks the profile, marks the stub deleted and revokes every session.
    /// Idempotent: nil when the user is already deleted or does not exist.
    public static func request(_ db: PostgresConnection, userId: Int64) throws -> DeletionRequest? {
        guard
            try db.execute(
                cached: "SELECT id FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE", [.int(userId)]
            ).first != nil
        else { return nil }
        let friends = try FriendRepository.friends(db, of: userId).map(\.userId)
        let members = try db.execute(
            cached: """
                SELECT DISTINCT o.user_id FROM members me JOIN members o ON o.conversation_id = me.conversation_id
                WHERE me.user_id = $1 AND o.user_id <> $1 AND o.left_seq IS NULL
                """, [.int(userId)]
        ).map { try $0.decode(Int64.self, column: 0) }
        try db.execute(
            cached: "INSERT INTO account_deletions (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING",
            [.int(userId)])
        try db.execute(
            cached: """
                UPDATE users SET phone = 'deleted:' || id, password_hash = '', display_name = 'Deleted account',
                last_seen_at = NULL, time_zone = NULL, locale = NULL,
                handle = NULL, bio = '', protected = false, deleted_at = now() WHERE id = $1
                """, [.int(userId)])
        let sessions = try db.execute(
            cached: "UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id",
            [.int(userId)]
        ).map { try $0.decode(Int64.self, column: 0) }
        return DeletionRequest(
            sessionIds: sessions, friendIds: friends, contactIds: Array(Set(friends + members)).sorted())
    }

    /// Users whose deletion job is not finished, oldest first.
    public static func unfinished(_ db: PostgresConnection, limit: Int) throws -> [Int64] {
        try db.execute(
            cached: "SELECT user_id FROM account_deletions WHERE finished_at IS NULL ORDER BY requested_at LIMIT $1",
            [.int(limit)]
        ).map { try $0.decode(Int64.self, column: 0) }
    }

    /// Locks the unfinished job row of `userId` for the current transaction, skipping it when another node's batch
    /// holds it: false when the job is finished, absent or being worked elsewhere right now.
    static func claim(_ db: PostgresConnection, userId: Int64, step: String?) throws -> Bool {
        guard
            try db.execute(
                cached: """
                    SELECT user_id FROM account_deletions WHERE user_id = $1 AND finished_at IS NULL
                    FOR UPDATE SKIP LOCKED
                    """,
                [.int(userId)]
            ).first != nil
        else { return false }
        try db.execute(
            cached: "UPDATE account_deletions SET step = $2 WHERE user_id = $1", [.int(userId), .text(step ?? "done")])
        return true
    }

    /// One batch of a step (its own transaction, under the job row's lock): what it changed (0 rows: the step is
    /// done; its `afterCommit` runs once the caller has seen the commit), or nil when the job is not ours to work
    /// (finished, or another node's batch holds it).
    public static func runBatch(
        _ db: PostgresConnection, userId: Int64, step: AccountDeletionStep, limit: Int
    ) throws -> DeletionBatch? {
        try db.transaction { db -> DeletionBatch? in
            guard try claim(db, userId: userId, step: step.name) else { return nil }
            return try step.batch(db, userId, limit)
        }
    }

    /// Marks the job finished (after every step ran dry); false when it was not ours to finish.
    public static func finish(_ db: PostgresConnection, userId: Int64) throws -> Bool {
        try db.transaction { db in
            guard try claim(db, userId: userId, step: nil) else { return false }
            try db.execute(
                cached: "UPDATE account_deletions SET finished_at = now() WHERE user_id = $1", [.int(userId)])
            return true
        }
    }
}
