//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import SwitchboardStore
import Synchronization

/// One PostgreSQL per test process: `SWITCHBOARD_TEST_DATABASE_URL` if set, else an ``EmbeddedPostgres`` in a
/// temporary folder, stopped (and its folder removed) by an `atexit` hook.
final class TestDatabase: Sendable {
    static let shared: TestDatabase = {
        do {
            return try TestDatabase()
        } catch {
            fatalError("cannot start the test database: \(String(reflecting: error))")
        }
    }()

    /// Set once, read by the `atexit` hook.
    private static let startedEmbedded = Mutex<EmbeddedPostgres?>(nil)

    private let base: String
    let embedded: EmbeddedPostgres?

    private init() throws {
        if let url = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_DATABASE_URL"], !url.isEmpty {
            base = url
            embedded = nil
            return
        }
        let embedded = EmbeddedPostgres(
            dataDirectory: temporaryFolder("shared"),
            logger: quietLogger(),
            settings: ["shared_buffers": "32MB"]
        )
        Self.startedEmbedded.withLock { $0 = embedded }
        atexit {
            if let embedded = TestDatabase.startedEmbedded.withLock({ $0 }) {
                embedded.stop()
                try? FileManager.default.removeItem(atPath: embedded.dataDirectory)
            }
        }
        base = try embedded.start()
        self.embedded = embedded
    }

    /// Creates a fresh database `t_<random>` and returns a connection string for it.
    func makeDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let admin = try PostgresConnection(connectionString: base, logger: quietLogger())
        try admin.queue.sync {
            try admin.executeScript("CREATE DATABASE \(name)")
            admin.close()
        }
        return Self.connectionString(base, database: name)
    }

    static func connectionString(_ base: String, database: String) -> String {
        if base.hasPrefix("postgres://") || base.hasPrefix("postgresql://"),
            var components = URLComponents(string: base)
        {
            components.path = "/" + database
            return components.string ?? base
        }
        return base + " dbname=\(database)"
    }
}

/// A new, unique folder path under the system temporary folder (not created).
func temporaryFolder(_ purpose: String) -> String {
    NSTemporaryDirectory() + "switchboard-store-\(purpose)-\(UUID().uuidString.prefix(8))"
}

func quietLogger() -> Logger {
    Logger(label: "switchboard.store.tests", factory: { _ in SwiftLogNoOpLogHandler() })
}

/// Runs `body` on the connection's queue.
@discardableResult
func on<T>(_ connection: PostgresConnection, _ body: (PostgresConnection) throws -> T) throws -> T {
    try connection.queue.sync { try body(connection) }
}

/// Captures log messages in memory (never bootstraps the logging system).
final class CapturedLogs: Sendable {
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let storage = Mutex<[Entry]>([])

    var entries: [Entry] { storage.withLock { $0 } }

    func logger() -> Logger {
        Logger(label: "captured") { _ in Handler(sink: self) }
    }

    fileprivate func append(_ entry: Entry) { storage.withLock { $0.append(entry) } }

    struct Handler: LogHandler {
        let sink: CapturedLogs
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            var merged: [String: String] = [:]
            for (key, value) in metadata { merged[key] = "\(value)" }
            for (key, value) in event.metadata ?? [:] { merged[key] = "\(value)" }
            sink.append(Entry(level: event.level, message: "\(event.message)", metadata: merged))
        }
    }
}
