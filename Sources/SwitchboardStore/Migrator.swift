//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Logging

/// Applies pending ``Migration``s.
///
/// Each migration runs in its own transaction that first takes `pg_advisory_xact_lock(advisoryLockKey)`, then
/// re-reads `schema_migrations`, so several servers starting at once apply every migration exactly once: the
/// others wait on the lock and then find nothing left to do. Applied versions are recorded in
/// `schema_migrations(version, name, applied_at)`. Each transaction turns the session's lock, statement and
/// idle-in-transaction limits off for itself (`SET LOCAL`).
public enum Migrator {
    /// The advisory lock key (arbitrary constant: "SWBDMIGR" in ASCII, truncated to 63 bits).
    public static let advisoryLockKey: Int64 = 0x5357_4244_4D49_4752

    /// Applies pending migrations in order.
    /// - Parameters:
    ///   - connection: A connection, called on its queue.
    ///   - migrations: Every migration the code knows (any order).
    ///   - logger: Receives one info line per applied migration.
    /// - Returns: The schema version after migrating (0 for an empty list on an empty database).
    /// - Throws: ``MigrationError`` or ``PostgresError``; a failed migration is rolled back entirely.
    @discardableResult
    public static func migrate(_ connection: PostgresConnection, migrations: [Migration], logger: Logger) throws -> Int
    {
        let sorted = migrations.sorted { $0.version < $1.version }
        var seen = Set<Int>()
        for migration in sorted where migration.version <= 0 || !seen.insert(migration.version).inserted {
            throw MigrationError.invalidMigrationList(version: migration.version)
        }
        let codeVersion = sorted.last?.version ?? 0
        while true {
            let outcome = try connection.transaction { connection -> (applied: Migration?, version: Int) in
                // A migration is never cut by the session's limits (`PostgresSessionTimeouts`): it may wait for
                // another server's migration (the advisory lock) and rewrite large tables.
                try connection.executeScript(
                    "SET LOCAL lock_timeout = 0; SET LOCAL statement_timeout = 0; "
                        + "SET LOCAL idle_in_transaction_session_timeout = 0")
                try connection.query("SELECT pg_advisory_xact_lock($1)", [.int(advisoryLockKey)])
                try connection.query(
                    """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version bigint PRIMARY KEY,
                        name text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """
                )
                let applied = Set(
                    try connection.query("SELECT version FROM schema_migrations").decode(Int.self, column: 0)
                )
                let databaseVersion = applied.max() ?? 0
                if databaseVersion > codeVersion {
                    throw MigrationError.databaseNewerThanCode(
                        databaseVersion: databaseVersion,
                        codeVersion: codeVersion
                    )
                }
                guard let next = sorted.first(where: { !applied.contains($0.version) }) else {
                    return (nil, databaseVersion)
                }
                try connection.executeScript(next.sql)
                try connection.query(
                    "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)",
                    [.int(next.version), .text(next.name)]
                )
                return (next, max(databaseVersion, next.version))
            }
            guard let applied = outcome.applied else { return outcome.version }
            logger.info(
                "Applied migration",
                metadata: [
                    StoreLogKey.migrationVersion: "\(applied.version)", StoreLogKey.migrationName: "\(applied.name)",
                ]
            )
        }
    }
}
