//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import CSwitchboardSys
import Foundation
import Logging
import SwitchboardServer

/// Where the data lives: an operator's PostgreSQL, or the embedded one under the data folder.
struct DatabaseOptions: ParsableArguments {
    @Option(
        help:
            """
            PostgreSQL connection URL or libpq string; without it the server runs its own PostgreSQL under --data-dir. \
            [env: DATABASE_URL or SWITCHBOARD_DATABASE_URL]
            """
    )
    var databaseURL: String = env("SWITCHBOARD_DATABASE_URL") ?? env("DATABASE_URL") ?? ""

    @Option(
        help:
            """
            Folder for the server's data (the embedded PostgreSQL lives in <data-dir>/postgres). [env: \
            SWITCHBOARD_DATA_DIR]
            """
    )
    var dataDir: String = env("SWITCHBOARD_DATA_DIR") ?? "switchboard-data"

    @Option(help: "Connections in the database pool. [env: SWITCHBOARD_DB_POOL_SIZE]")
    var dbPoolSize: Int = envValue("SWITCHBOARD_DB_POOL_SIZE", as: Int.self) ?? 4

    @Option(
        help:
            """
            Requests that may wait for a database connection before further ones answer unavailable. [env: \
            SWITCHBOARD_DB_MAX_WAITERS]
            """
    )
    var dbMaxWaiters: Int = envValue("SWITCHBOARD_DB_MAX_WAITERS", as: Int.self) ?? 1024

    @Option(
        help:
            """
            Seconds a database session waits for a lock (such as a conversation's row) before the request answers \
            unavailable; 0: no limit. [env: SWITCHBOARD_DB_LOCK_TIMEOUT]
            """
    )
    var dbLockTimeout: Double = envValue("SWITCHBOARD_DB_LOCK_TIMEOUT", as: Double.self) ?? 2

    @Option(
        help:
            """
            Seconds a database session may sit idle inside a transaction before PostgreSQL ends it; 0: no limit. \
            [env: SWITCHBOARD_DB_IDLE_IN_TRANSACTION_TIMEOUT]
            """
    )
    var dbIdleInTransactionTimeout: Double =
        envValue("SWITCHBOARD_DB_IDLE_IN_TRANSACTION_TIMEOUT", as: Double.self) ?? 5

    @Option(
        help:
            """
            Seconds one database statement may run before it is cancelled (migrations are exempt); 0: no limit. \
            [env: SWITCHBOARD_DB_STATEMENT_TIMEOUT]
            """
    )
    var dbStatementTimeout: Double = envValue("SWITCHBOARD_DB_STATEMENT_TIMEOUT", as: Double.self) ?? 30

    @Option(
        help:
            """
            Requests of one connection that may wait for a database connection before its further ones answer \
            unavailable. [env: SWITCHBOARD_DB_MAX_WAITERS_PER_OWNER]
            """
    )
    var dbMaxWaitersPerOwner: Int = envValue("SWITCHBOARD_DB_MAX_WAITERS_PER_OWNER", as: Int.self) ?? 64

    @Option(
        help:
            """
            Database connections one client connection's requests may hold at once (connections wait their turn); \
            0: all but one of the pool's. [env: SWITCHBOARD_DB_CONNECTIONS_PER_OWNER]
            """
    )
    var dbConnectionsPerOwner: Int = envValue("SWITCHBOARD_DB_CONNECTIONS_PER_OWNER", as: Int.self) ?? 0

    @Option(
        help:
            """
            Seconds before the second attempt to restart a crashed embedded PostgreSQL (doubling). [env: \
            SWITCHBOARD_PG_RESTART_BACKOFF]
            """
    )
    var pgRestartBackoff: Double = envValue("SWITCHBOARD_PG_RESTART_BACKOFF", as: Double.self) ?? 0.5

    @Option(
        help:
            """
            Longest wait between attempts to restart a crashed embedded PostgreSQL, seconds. [env: \
            SWITCHBOARD_PG_RESTART_BACKOFF_MAX]
            """
    )
    var pgRestartBackoffMax: Double = envValue("SWITCHBOARD_PG_RESTART_BACKOFF_MAX", as: Double.self) ?? 30

    func validate() throws {
        guard dbMaxWaiters >= 0 else { throw ValidationError("--db-max-waiters must not be negative") }
        for (flag, value) in [
            ("--db-lock-timeout", dbLockTimeout), ("--db-idle-in-transaction-timeout", dbIdleInTransactionTimeout),
            ("--db-statement-timeout", dbStatementTimeout),
        ] where !(value >= 0 && value <= 86_400) {
            throw ValidationError("\(flag) must be between 0 and 86400 seconds")
        }
        guard dbMaxWaitersPerOwner >= 0 else {
            throw ValidationError("--db-max-waiters-per-owner must not be negative")
        }
        guard dbConnectionsPerOwner >= 0 else {
            throw ValidationError("--db-connections-per-owner must not be negative")
        }
        guard pgRestartBackoff > 0, pgRestartBackoffMax >= pgRestartBackoff else {
            throw ValidationError("--pg-restart-backoff must be positive and at most --pg-restart-backoff-max")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.databaseURL = databaseURL.isEmpty ? nil : databaseURL
        c.dataDirectory = dataDir
        c.databasePoolSize = max(1, dbPoolSize)
        c.databaseMaxWaiters = dbMaxWaiters
        c.databaseLockTimeout = dbLockTimeout
        c.databaseIdleInTransactionTimeout = dbIdleInTransactionTimeout
        c.databaseStatementTimeout = dbStatementTimeout
        c.databaseMaxWaitersPerOwner = dbMaxWaitersPerOwner
        c.databaseConnectionsPerOwner = dbConnectionsPerOwner
        c.embeddedRestartBackoff = pgRestartBackoff
        c.embeddedRestartBackoffMax = pgRestartBackoffMax
    }
}
