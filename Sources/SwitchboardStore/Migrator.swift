//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Logging

/// One schema migration: trusted, constant SQL (may hold several statements) applied once, in version order.
public struct Migration: Sendable, Hashable {
    /// The schema version this migration produces (positive, unique, increasing).
    public let version: Int
    /// A short name, recorded in `schema_migrations`.
    public let name: String
    /// The SQL to run (constant text from the code base, never user input).
    public let sql: String

    /// Creates a migration.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Errors from ``Migrator``.
public enum MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database records a schema version newer than any migration this code knows: refuse to run old code
    /// against a newer schema.
    case databaseNewerThanCode(databaseVersion: Int, codeVersion: Int)
    /// The migration list has a non-positive or duplicate version.
    case invalidMigrationList(version: Int)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .databaseNewerThanCode(let databaseVersion, let codeVersion):
            return "The database schema is at version \(databaseVersion), newer than this build knows "
                + "(\(codeVersion)); refusing to start. Upgrade Switchboard or restore a matching database."
        case .invalidMigrationList(let version):
            return "The migration list is invalid at version \(version) (versions must be positive and unique)."
        }
    }
}

/// Applies pending ``Migration``s.
///
/// Each migration runs in its own transaction that first takes `pg_advisory_xact_lock(advisoryLockKey)`, then
/// re-reads `schema_migrations`, so several servers starting at once apply every migration exactly once: the
/// others wait on the lock and then find nothing left to do. Applied versions are recorded in
/// `schema_migrations(version, name, applied_at)`.
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
