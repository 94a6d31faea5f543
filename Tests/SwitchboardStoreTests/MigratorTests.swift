//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardStore
import Synchronization
import Testing

@Suite("Migrator")
struct MigratorTests {
    /// Plain CREATE TABLE (no IF NOT EXISTS): applying any migration twice would fail.
    static let migrations = [
        Migration(
            version: 1,
            name: "accounts",
            sql: "CREATE TABLE accounts (id bigserial PRIMARY KEY, name text NOT NULL);"
        ),
        Migration(
            version: 2,
            name: "messages",
            sql: """
                CREATE TABLE messages (id bigserial PRIMARY KEY, account bigint REFERENCES accounts(id));
                CREATE INDEX messages_account ON messages (account);
                """
        ),
        Migration(version: 3, name: "seed", sql: "INSERT INTO accounts (name) VALUES ('system');"),
    ]

    @Test("Applies pending migrations in order, records them, and is idempotent")
    func appliesInOrder() throws {
        let connection = try PostgresConnection(
            connectionString: try TestDatabase.shared.makeDatabase(),
            logger: quietLogger()
        )
        let logs = CapturedLogs()
        let (first, second, recorded) = try on(connection) { connection -> (Int, Int, [String]) in
            // Given out of order on purpose.
            let first = try Migrator.migrate(
                connection,
                migrations: Array(Self.migrations.prefix(2).reversed()),
                logger: logs.logger()
            )
            let second = try Migrator.migrate(connection, migrations: Self.migrations, logger: logs.logger())
            let recorded = try connection.query(
                "SELECT version, name FROM schema_migrations ORDER BY applied_at, version"
            )
            .map { "\($0.int(0) ?? 0):\($0.string(1) ?? "")" }
            return (first, second, recorded)
        }
        #expect(first == 2)
        #expect(second == 3)
        #expect(recorded == ["1:accounts", "2:messages", "3:seed"])
        #expect(logs.entries.filter { $0.message == "Applied migration" }.count == 3)
        let again = try on(connection) { try Migrator.migrate($0, migrations: Self.migrations, logger: quietLogger()) }
        #expect(again == 3)
    }

    @Test("Two concurrent migrators apply each migration exactly once")
    func concurrentMigrators() throws {
        let url = try TestDatabase.shared.makeDatabase()
        // A slow first migration widens the race window.
        let migrations =
            [Migration(version: 1, name: "slow", sql: "SELECT pg_sleep(0.3); CREATE TABLE slow (x int);")]
            + Self.migrations.map { Migration(version: $0.version + 1, name: $0.name, sql: $0.sql) }
        let connections = try (0..<2).map { index in
            try PostgresConnection(
                connectionString: url,
                queue: DispatchQueue(label: "migrator-\(index)"),
                logger: quietLogger()
            )
        }
        let outcomes = Mutex<[Result<Int, any Error>]>([])
        let group = DispatchGroup()
        for connection in connections {
            connection.queue.async(group: group) {
                let result = Result { try Migrator.migrate(connection, migrations: migrations, logger: quietLogger()) }
                outcomes.withLock { $0.append(result) }
            }
        }
        #expect(group.wait(timeout: .now() + 30) == .success)
        let versions = outcomes.withLock { $0.map { try? $0.get() } }
        #expect(versions == [4, 4])
        let (rows, accounts) = try on(connections[0]) { connection in
            (
                try connection.query("SELECT count(*) FROM schema_migrations").first?.int(0),
                try connection.query("SELECT count(*) FROM accounts").first?.int(0)
            )
        }
        #expect(rows == 4)
        #expect(accounts == 1)
    }

    @Test("Refuses a database whose schema is newer than the code")
    func refusesNewerSchema() throws {
        let connection = try PostgresConnection(
            connectionString: try TestDatabase.shared.makeDatabase(),
            logger: quietLogger()
        )
        let error = try on(connection) { connection -> MigrationError? in
            try Migrator.migrate(connection, migrations: Self.migrations, logger: quietLogger())
            do {
                try Migrator.migrate(connection, migrations: Array(Self.migrations.prefix(1)), logger: quietLogger())
                return nil
            } catch let error as MigrationError {
                return error
            }
        }
        #expect(error == .databaseNewerThanCode(databaseVersion: 3, codeVersion: 1))
        #expect(error?.description.contains("newer than this build") == true)
    }

    @Test("A failing migration is rolled back entirely and not recorded")
    func failingMigrationRollsBack() throws {
        let connection = try PostgresConnection(
            connectionString: try TestDatabase.shared.makeDatabase(),
            logger: quietLogger()
        )
        let broken =
            Self.migrations.prefix(1) + [
                Migration(version: 2, name: "broken", sql: "CREATE TABLE half (x int); SELECT no_such_function();")
            ]
        let (thrown, version, halfExists) = try on(connection) { connection -> (Bool, Int?, Int?) in
            let thrown = (try? Migrator.migrate(connection, migrations: Array(broken), logger: quietLogger())) == nil
            return (
                thrown,
                try connection.query("SELECT max(version) FROM schema_migrations").first?.int(0),
                try connection.query("SELECT count(*) FROM pg_tables WHERE tablename = 'half'").first?.int(0)
            )
        }
        #expect(thrown)
        #expect(version == 1)
        #expect(halfExists == 0)
    }

    @Test("Rejects duplicate versions")
    func rejectsDuplicates() throws {
        let connection = try PostgresConnection(
            connectionString: try TestDatabase.shared.makeDatabase(),
            logger: quietLogger()
        )
        #expect(throws: MigrationError.invalidMigrationList(version: 1)) {
            try on(connection) {
                try Migrator.migrate($0, migrations: Self.migrations + [Self.migrations[0]], logger: quietLogger())
            }
        }
    }
}
