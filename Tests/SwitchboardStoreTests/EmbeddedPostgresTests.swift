//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardStore
import Testing

@Suite("EmbeddedPostgres")
struct EmbeddedPostgresTests {
    private static func makeServer(_ folder: String) -> EmbeddedPostgres {
        EmbeddedPostgres(dataDirectory: folder, logger: quietLogger(), settings: ["shared_buffers": "16MB"])
    }

    private static func count(_ url: String) throws -> Int? {
        let connection = try PostgresConnection(connectionString: url, logger: quietLogger())
        return try on(connection) { try $0.query("SELECT count(*) FROM kept").first?.int(0) }
    }

    private static func isAlive(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        return !stat.contains(") Z")
    }

    @Test("Missing binaries: the error names apt-get install postgresql")
    func missingBinaries() throws {
        let empty = temporaryFolder("empty-bin")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        #expect {
            _ = try EmbeddedPostgres.locateBinaries(environment: ["SWITCHBOARD_PG_BIN": empty, "PATH": "/usr/bin"])
        } throws: { error in
            "\(error)".contains("apt-get install postgresql") && "\(error)".contains(empty)
        }
        // Without the override, the Debian layout is found, newest version first.
        let found = try EmbeddedPostgres.locateBinaries(environment: ["PATH": ""])
        #expect(found.directory.hasPrefix("/usr/lib/postgresql/"))
    }

    @Test("Restart reuses the data; stop leaves no process behind")
    func restartKeepsData() throws {
        let folder = temporaryFolder("restart")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = Self.makeServer(folder)
        let url = try server.start()
        #expect(url.contains("host='\(folder)/run'"))
        #expect(try server.start() == url)  // already running: same server
        let pid = try #require(server.postmasterPID())
        let connection = try PostgresConnection(connectionString: url, logger: quietLogger())
        try on(connection) { connection in
            try connection.query("CREATE TABLE kept (x int)")
            try connection.query("INSERT INTO kept VALUES (1), (2)")
            connection.close()
        }
        server.stop()
        #expect(!Self.isAlive(pid))
        #expect(!FileManager.default.fileExists(atPath: folder + "/run/.s.PGSQL.5432"))
        #expect(try server.start() == url)
        #expect(try Self.count(url) == 2)
        server.stop()
        let log = try String(contentsOfFile: folder + "/postgres.log", encoding: .utf8)
        #expect(log.contains("database system is shut down"))
    }

    @Test("Restart after kill -9 of postgres keeps committed data, and a pool recovers")
    func restartAfterKill() async throws {
        let folder = temporaryFolder("kill")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let server = Self.makeServer(folder)
        defer { server.stop() }
        let url = try server.start()
        let pool = try DatabasePool(connectionString: url, size: 2, logger: quietLogger())
        defer { pool.close() }
        try await pool.withConnection { connection in
            try connection.query("CREATE TABLE kept (x int)")
            try connection.query("INSERT INTO kept VALUES (1)")
        }
        let pid = try #require(server.postmasterPID())
        kill(pid, SIGKILL)
        let deadline = ContinuousClock.now + .seconds(10)
        while Self.isAlive(pid), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(!Self.isAlive(pid))
        #expect(try server.start() == url)
        #expect(server.postmasterPID() != pid)
        #expect(try Self.count(url) == 1)
        // Pooled connections notice the dead socket and reset before their next statement.
        for _ in 0..<4 {
            let value = try await pool.withConnection { try $0.query("SELECT count(*) FROM kept").first?.int(0) }
            #expect(value == 1)
        }
    }

    @Test("An orphaned postgres left by a killed owner is shut down and replaced")
    func orphanIsReplaced() throws {
        let folder = temporaryFolder("orphan")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // `first` plays the killed server: a second instance knows nothing of its child.
        let first = Self.makeServer(folder)
        let url = try first.start()
        let connection = try PostgresConnection(connectionString: url, logger: quietLogger())
        try on(connection) { connection in
            try connection.query("CREATE TABLE kept (x int)")
            try connection.query("INSERT INTO kept VALUES (1), (2), (3)")
            connection.close()
        }
        let orphan = try #require(first.postmasterPID())
        let second = Self.makeServer(folder)
        #expect(try second.start() == url)
        #expect(!Self.isAlive(orphan))
        #expect(second.postmasterPID() != orphan)
        #expect(try Self.count(url) == 3)
        second.stop()
        first.stop()  // reaps its exited child
    }
}
