//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
public import Logging
import SwitchboardCore
import SwitchboardDomain
public import SwitchboardStore

#if canImport(Glibc)
import Glibc
#endif

/// The database the server runs on: an operator's PostgreSQL, or the embedded one under the data folder.
public final class DatabaseRuntime: Sendable {
    public let pool: DatabasePool
    let embedded: EmbeddedPostgres?
    /// The libpq connection string the pool uses (scheduled backups hand it to `pg_dump`).
    let connectionString: String
    let logger: Logger

    init(pool: DatabasePool, embedded: EmbeddedPostgres?, connectionString: String, logger: Logger) {
        self.pool = pool
        self.embedded = embedded
        self.connectionString = connectionString
        self.logger = logger
    }

    /// Connects (starting the embedded server when no URL is configured) and applies pending migrations.
    public static func open(configuration: ServerConfiguration, logger: Logger) throws -> DatabaseRuntime {
        var embedded: EmbeddedPostgres? = nil
        let connectionString: String
        if let url = configuration.databaseURL, !url.isEmpty {
            connectionString = url
            logger.info("using the configured PostgreSQL")
        } else {
            var settings: [String: String] = [:]
            if let archive = configuration.backups.walArchive {
                try WALArchive.prepare(directory: archive)
                settings = WALArchive.settings(directory: archive, timeout: configuration.backups.walArchiveTimeout)
            }
            let server = EmbeddedPostgres(
                dataDirectory: configuration.dataDirectory, logger: logger, settings: settings)
            connectionString = try server.start()
            if let archive = configuration.backups.walArchive {
                try WALArchive.prepare(directory: archive)  // as root, the PostgreSQL user now exists: give it wal/
            }
            embedded = server
            logger.info("embedded PostgreSQL started", metadata: [LogKey.dataDirectory: "\(server.clusterDirectory)"])
        }
        do {
            let pool = try DatabasePool(
                connectionString: connectionString, size: configuration.databasePoolSize, logger: logger,
                maxWaiters: configuration.databaseMaxWaiters,
                maxWaitersPerOwner: configuration.databaseMaxWaitersPerOwner,
                connectionsPerOwner: configuration.databaseConnectionsPerOwner > 0
                    ? configuration.databaseConnectionsPerOwner : nil,
                timeouts: PostgresSessionTimeouts(
                    lock: configuration.databaseLockTimeout,
                    idleInTransaction: configuration.databaseIdleInTransactionTimeout,
                    statement: configuration.databaseStatementTimeout))
            let version = try pool.migrateBlocking(logger: logger)
            logger.info("schema ready", metadata: [LogKey.version: "\(version)"])
            // A crashed embedded server is restarted with back-off; the pool reconnects at its next use.
            embedded?.supervise(
                initialBackoff: configuration.embeddedRestartBackoff,
                maxBackoff: configuration.embeddedRestartBackoffMax)
            return DatabaseRuntime(pool: pool, embedded: embedded, connectionString: connectionString, logger: logger)
        } catch {
            embedded?.stop()
            throw error
        }
    }

    /// Closes the pool and stops the embedded server, if any.
    public func close() {
        pool.close()
        embedded?.stop()
    }
}
