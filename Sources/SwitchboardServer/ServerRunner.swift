//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
public import Logging
import SwitchboardCore
public import SwitchboardStore

#if canImport(Glibc)
import Glibc
#endif

/// Runs a server until SIGTERM or SIGINT, then shuts it down gracefully.
public enum ServerRunner {
    /// Starts the server, blocks until a signal has stopped it, returns the process exit code.
    public static func run(configuration: ServerConfiguration, logger: Logger) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let server: HubServer
        let database: Database
        do {
            database = try Database.open(configuration: configuration, logger: logger)
            server = try HubServer(configuration: configuration, logger: logger, database: database.pool)
            try server.start()
        } catch {
            logger.critical("could not start", metadata: ["error": "\(error)"])
            return 1
        }
        let done = DispatchSemaphore(value: 0)
        let signalQueue = DispatchQueue(label: "switchboard.signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)  // delivered through the Dispatch source instead
            let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            source.setEventHandler {
                logger.info("signal received", metadata: ["signal": "\(sig == SIGTERM ? "SIGTERM" : "SIGINT")"])
                server.shutdown { done.signal() }
            }
            source.resume()
            sources.append(source)
        }
        done.wait()
        withExtendedLifetime(sources) {}
        database.close()
        return 0
    }
}

/// The database the server runs on: an operator's PostgreSQL, or the embedded one under the data folder.
public final class Database: Sendable {
    public let pool: DatabasePool
    let embedded: EmbeddedPostgres?
    let logger: Logger

    init(pool: DatabasePool, embedded: EmbeddedPostgres?, logger: Logger) {
        self.pool = pool
        self.embedded = embedded
        self.logger = logger
    }

    /// Connects (starting the embedded server when no URL is configured) and applies pending migrations.
    public static func open(configuration: ServerConfiguration, logger: Logger) throws -> Database {
        var embedded: EmbeddedPostgres? = nil
        let connectionString: String
        if let url = configuration.databaseURL, !url.isEmpty {
            connectionString = url
            logger.info("using the configured PostgreSQL")
        } else {
            let server = EmbeddedPostgres(dataDirectory: configuration.dataDirectory, logger: logger)
            connectionString = try server.start()
            embedded = server
            logger.info("embedded PostgreSQL started", metadata: ["data_directory": "\(server.clusterDirectory)"])
        }
        do {
            let pool = try DatabasePool(connectionString: connectionString, size: configuration.databasePoolSize, logger: logger)
            let version = try pool.migrateBlocking(logger: logger)
            logger.info("schema ready", metadata: ["version": "\(version)"])
            return Database(pool: pool, embedded: embedded, logger: logger)
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

extension DatabasePool {
    /// Applies `Schema.migrations`; blocks the calling thread (start-up only, never a loop queue).
    func migrateBlocking(logger: Logger) throws -> Int {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<Int, any Error> = .failure(CancellationError())
        withConnection(on: DispatchQueue(label: "switchboard.migrate"), { connection in
            try Migrator.migrate(connection, migrations: Schema.migrations, logger: logger)
        }, completion: { outcome in
            result = outcome
            done.signal()
        })
        done.wait()
        return try result.get()
    }
}
