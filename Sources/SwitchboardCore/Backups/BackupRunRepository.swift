//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
public import SwitchboardStore

/// The SQL that keeps scheduled backups to one node at a time (docs/operations.md, "Scheduled backups"): a node
/// takes a session-level advisory lock on a connection of its own for the whole dump, and skips its turn when
/// another node finished a backup recently (table `backup_runs`, migration 16).
public enum BackupRunRepository {
    /// The key of the advisory lock held while a node dumps ("SBBACKUP" in ASCII).
    public static let advisoryLockKey: Int64 = 0x5342_4241_434B_5550

    /// Takes the backup lock for this session if it is free; whether it was taken. Held until ``unlock(_:)`` or
    /// the session ends (a node that dies mid-dump releases it with its connection).
    public static func tryLock(_ db: PostgresConnection) throws -> Bool {
        try db.execute(cached: "SELECT pg_try_advisory_lock($1)", [.int(advisoryLockKey)]).decodeFirst(Bool.self)
            ?? false
    }

    /// Releases the lock taken by ``tryLock(_:)``.
    public static func unlock(_ db: PostgresConnection) throws {
        try db.execute(cached: "SELECT pg_advisory_unlock($1)", [.int(advisoryLockKey)])
    }

    /// The newest scheduled backup another node finished after `since`, if any: (node, path, finished).
    public static func latestByAnotherNode(_ db: PostgresConnection, node: String, since: Date) throws -> (
        node: String, path: String, finished: Date
    )? {
        guard
            let row = try db.execute(
                cached: """
                    SELECT node, path, finished_at FROM backup_runs
                    WHERE node <> $1 AND finished_at > $2 ORDER BY finished_at DESC LIMIT 1
                    """, [.text(node), .timestamp(since)]
            ).first
        else { return nil }
        return (
            try row.decode(String.self, column: 0), try row.decode(String.self, column: 1),
            try row.decode(Date.self, column: 2)
        )
    }

    /// Records a finished scheduled backup and forgets runs older than `keepSince`.
    public static func record(_ db: PostgresConnection, node: String, path: String, keepSince: Date) throws {
        try db.execute(cached: "INSERT INTO backup_runs (node, path) VALUES ($1, $2)", [.text(node), .text(path)])
        try db.execute(cached: "DELETE FROM backup_runs WHERE finished_at < $1", [.timestamp(keepSince)])
    }
}
