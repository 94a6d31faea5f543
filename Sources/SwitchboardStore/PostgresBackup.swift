//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

internal import CLibpq
public import Foundation
public import Logging

/// Logical backups with `pg_dump` (custom format, one consistent snapshot) and restores with `pg_restore` (one
/// transaction): for the embedded PostgreSQL (over its unix socket, while the server runs) and for an external
/// one. The voice clips are rows (`voice_clips.audio`), so the dump holds them.
///
/// A backup folder holds `switchboard.dump` and `manifest.json` (``BackupManifest``), written last. The manifest's
/// counts are read inside the snapshot the dump uses (`pg_export_snapshot`), so they describe the dump exactly.
///
/// Every function blocks for as long as the dump or restore takes: call them from a command or a private queue,
/// never a loop queue.
public enum PostgresBackup {
    /// The dump file's name inside a backup folder.
    public static let dumpFileName = "switchboard.dump"
    /// The manifest's name inside a backup folder.
    public static let manifestFileName = "manifest.json"

    /// Finds `pg_dump` and `pg_restore` like ``EmbeddedPostgres/locateBinaries(environment:versionsRoot:)``
    /// finds the server: `$SWITCHBOARD_PG_BIN` only if set, else `/usr/lib/postgresql/<version>/bin` newest
    /// first (a newer `pg_dump` reads older servers), else `$PATH`.
    public static func locateClients(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        versionsRoot: String = "/usr/lib/postgresql"
    ) throws -> (pgDump: String, pgRestore: String) {
        let candidates = EmbeddedPostgres.binaryDirectories(environment: environment, versionsRoot: versionsRoot)
        for directory in candidates {
            let dump = directory + "/pg_dump"
            let restore = directory + "/pg_restore"
            if access(dump, X_OK) == 0, access(restore, X_OK) == 0 { return (dump, restore) }
        }
        throw PostgresBackupError.clientNotFound(searched: candidates)
    }

    // MARK: Backup

    /// Dumps the database at `connectionString` into `directory` (created if absent; must be empty).
    /// - Parameter source: recorded in the manifest (`embedded` or `external`).
    /// - Returns: The manifest written.
    @discardableResult
    public static func backup(
        connectionString: String, to directory: String, source: String, logger: Logger
    ) throws -> BackupManifest {
        let clients = try locateClients()
        let manager = FileManager.default
        try checkBackupTarget(directory)
        try manager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let dumpPath = directory + "/" + dumpFileName
        let partial = dumpPath + ".partial"

        // One repeatable-read transaction exports the snapshot pg_dump uses and reads the manifest's counts in it.
        let connection = try PostgresConnection(connectionString: connectionString, logger: logger)
        var manifest = try connection.queue.sync { () throws -> BackupManifest in
            defer { connection.close() }
            try connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            let snapshot = try connection.query("SELECT pg_export_snapshot() AS id")[0].string("id") ?? ""
            let facts = try connection.query(
                """
                SELECT (SELECT coalesce(max(version), 0) FROM schema_migrations) AS schema_version,
                       pg_database_size(current_database()) AS database_bytes,
                       (SELECT count(*) FROM users) AS users,
                       (SELECT count(*) FROM messages) AS messages,
                       (SELECT count(*) FROM voice_clips) AS voice_clips,
                       current_setting('server_version') AS server_version,
                       to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS snapshot_at
                """)[0]
            logger.info("backup started", metadata: ["directory": "\(directory)", "snapshot": "\(snapshot)"])
            do {
                try runTool(
                    [
                        clients.pgDump, "--format=custom", "--compress=6", "--no-owner", "--no-privileges",
                        "--snapshot=\(snapshot)", "--file=\(partial)", "--dbname=\(connectionString)",
                    ], logger: logger)
            } catch {
                try? manager.removeItem(atPath: partial)  // the folder stays empty: a retry may use it
                throw error
            }
            try connection.query("COMMIT")
            return BackupManifest(
                format: 1, snapshotAt: facts.string("snapshot_at") ?? "", finishedAt: "",
                schemaVersion: facts.int("schema_version") ?? 0, dumpFile: dumpFileName, dumpBytes: 0,
                databaseBytes: Int64(facts.int("database_bytes") ?? 0), users: Int64(facts.int("users") ?? 0),
                messages: Int64(facts.int("messages") ?? 0), voiceClips: Int64(facts.int("voice_clips") ?? 0),
                postgresVersion: facts.string("server_version") ?? "", source: source)
        }
        try syncFile(partial)
        try manager.moveItem(atPath: partial, toPath: dumpPath)
        manifest.dumpBytes = Int64(
            (try manager.attributesOfItem(atPath: dumpPath)[.size] as? NSNumber)?.int64Value ?? 0)
        manifest.finishedAt = iso8601(Date())
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let manifestPath = directory + "/" + manifestFileName
        try encoder.encode(manifest).write(to: URL(fileURLWithPath: manifestPath + ".partial"))
        try syncFile(manifestPath + ".partial")
        try manager.moveItem(atPath: manifestPath + ".partial", toPath: manifestPath)
        try syncFile(directory)
        logger.info(
            "backup finished",
            metadata: [
                "directory": "\(directory)", "bytes": "\(manifest.dumpBytes)", "messages": "\(manifest.messages)",
                "schema_version": "\(manifest.schemaVersion)",
            ])
        return manifest
    }

    /// Throws ``PostgresBackupError/backupTargetNotEmpty(_:)`` unless `directory` is absent or empty.
    public static func checkBackupTarget(_ directory: String) throws {
        if let entries = try? FileManager.default.contentsOfDirectory(atPath: directory), !entries.isEmpty {
            throw PostgresBackupError.backupTargetNotEmpty(directory)
        }
    }

    /// Reads a backup folder's manifest and checks that its dump is there.
    public static func readManifest(_ directory: String) throws -> BackupManifest {
        let path = directory + "/" + manifestFileName
        guard let data = FileManager.default.contents(atPath: path) else {
            throw PostgresBackupError.notABackup("\(path) is missing")
        }
        let manifest: BackupManifest
        do {
            manifest = try JSONDecoder().decode(BackupManifest.self, from: data)
        } catch {
            throw PostgresBackupError.notABackup("\(path) does not parse: \(error)")
        }
        guard manifest.format == 1 else { throw PostgresBackupError.notABackup("unknown format \(manifest.format)") }
        let dump = directory + "/" + manifest.dumpFile
        let size = (try? FileManager.default.attributesOfItem(atPath: dump)[.size] as? NSNumber)?.int64Value
        guard size == manifest.dumpBytes else {
            throw PostgresBackupError.notABackup("\(dump) is missing or not \(manifest.dumpBytes) bytes")
        }
        return manifest
    }

    // MARK: Restore

    /// Whether the database holds no tables, views or sequences outside PostgreSQL's own schemas.
    public static func databaseIsEmpty(connectionString: String, logger: Logger) throws -> Bool {
        let connection = try PostgresConnection(connectionString: connectionString, logger: logger)
        return try connection.queue.sync {
            defer { connection.close() }
            let rows = try connection.query(
                """
                SELECT count(*) AS n FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\\_toast%'
                  AND n.nspname NOT LIKE 'pg\\_temp%'
                """)
            return (rows[0].int("n") ?? 1) == 0
        }
    }

    /// Restores the backup in `directory` into the empty database at `connectionString` in one transaction (a
    /// failed restore leaves the database empty), then checks the row counts against the manifest.
    /// - Throws: ``PostgresBackupError/restoreTargetNotEmpty(_:)`` if the database holds tables.
    @discardableResult
    public static func restore(
        from directory: String, connectionString: String, logger: Logger
    ) throws -> BackupManifest {
        let manifest = try readManifest(directory)
        let clients = try locateClients()
        guard try databaseIsEmpty(connectionString: connectionString, logger: logger) else {
            throw PostgresBackupError.restoreTargetNotEmpty("the database")
        }
        logger.info(
            "restore started", metadata: ["directory": "\(directory)", "snapshot_at": "\(manifest.snapshotAt)"])
        try runTool(
            [
                clients.pgRestore, "--exit-on-error", "--single-transaction", "--no-owner", "--no-privileges",
                "--dbname=\(connectionString)", directory + "/" + manifest.dumpFile,
            ], logger: logger)
        let connection = try PostgresConnection(connectionString: connectionString, logger: logger)
        try connection.queue.sync {
            defer { connection.close() }
            let row = try connection.query(
                """
                SELECT (SELECT coalesce(max(version), 0) FROM schema_migrations) AS schema_version,
                       (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM messages) AS messages,
                       (SELECT count(*) FROM voice_clips) AS voice_clips
                """)[0]
            let found = [
                row.int("schema_version") ?? -1, row.int("users") ?? -1, row.int("messages") ?? -1,
                row.int("voice_clips") ?? -1,
            ].map(Int64.init)
            let expected = [Int64(manifest.schemaVersion), manifest.users, manifest.messages, manifest.voiceClips]
            guard found == expected else {
                throw PostgresBackupError.verificationFailed(
                    "schema version, users, messages, voice clips: expected \(expected), found \(found)")
            }
        }
        logger.info(
            "restore finished",
            metadata: ["messages": "\(manifest.messages)", "schema_version": "\(manifest.schemaVersion)"])
        return manifest
    }

    // MARK: Embedded

    /// Whether the embedded server of `dataDirectory` answers on its socket (a running `switchboard serve`).
    public static func embeddedIsAnswering(_ postgres: EmbeddedPostgres) -> Bool {
        PQping(postgres.connectionString(database: "postgres") + " connect_timeout=2") == PQPING_OK
    }

    /// Backs up the embedded PostgreSQL of a data folder: through the running server's socket when it answers
    /// (the server keeps running), else by starting it for the dump and stopping it again.
    @discardableResult
    public static func backupEmbedded(dataDirectory: String, to directory: String, logger: Logger) throws
        -> BackupManifest
    {
        try checkBackupTarget(directory)
        let postgres = EmbeddedPostgres(dataDirectory: dataDirectory, logger: logger)
        if embeddedIsAnswering(postgres) {
            return try backup(
                connectionString: postgres.connectionString(), to: directory, source: "embedded", logger: logger)
        }
        guard FileManager.default.fileExists(atPath: postgres.clusterDirectory + "/PG_VERSION") else {
            throw PostgresBackupError.noCluster(postgres.dataDirectory)
        }
        let connectionString = try postgres.start()
        defer { postgres.stop() }
        return try backup(connectionString: connectionString, to: directory, source: "embedded", logger: logger)
    }

    /// Restores into a new embedded PostgreSQL under `dataDirectory` (which must not hold a cluster yet): starts
    /// it (`initdb`), restores, stops it. On failure the new cluster is removed again, so a retry finds the
    /// folder empty.
    @discardableResult
    public static func restoreEmbedded(from directory: String, dataDirectory: String, logger: Logger) throws
        -> BackupManifest
    {
        _ = try readManifest(directory)
        let postgres = EmbeddedPostgres(dataDirectory: dataDirectory, logger: logger)
        let manager = FileManager.default
        if let entries = try? manager.contentsOfDirectory(atPath: postgres.clusterDirectory), !entries.isEmpty {
            throw PostgresBackupError.restoreTargetNotEmpty("the data folder \(postgres.dataDirectory)")
        }
        let connectionString = try postgres.start()
        do {
            let manifest = try restore(from: directory, connectionString: connectionString, logger: logger)
            postgres.stop()
            return manifest
        } catch {
            postgres.stop()
            try? manager.removeItem(atPath: postgres.clusterDirectory)
            throw error
        }
    }

    // MARK: Scheduled backups

    /// The finished backups under `root` made by ``backupInto(root:connectionString:source:logger:now:)``
    /// (folders named `backup-<UTC time>` holding a manifest), oldest first.
    public static func scheduledBackups(in root: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return entries.filter { $0.hasPrefix("backup-") && !$0.hasSuffix(".partial") }
            .filter { FileManager.default.fileExists(atPath: root + "/" + $0 + "/" + manifestFileName) }
            .sorted()
    }

    /// Makes a new backup folder `backup-<UTC time>` under `root` (through `<name>.partial`, renamed when
    /// finished), then removes the oldest finished ones beyond `keep` and any `.partial` folder left by an
    /// interrupted run.
    /// - Returns: The new folder's path and its manifest.
    public static func backupInto(
        root: String, keep: Int, connectionString: String, source: String, logger: Logger, now: Date = Date()
    ) throws -> (path: String, manifest: BackupManifest) {
        let manager = FileManager.default
        try manager.createDirectory(atPath: root, withIntermediateDirectories: true)
        for entry in (try? manager.contentsOfDirectory(atPath: root)) ?? [] where entry.hasSuffix(".partial") {
            try? manager.removeItem(atPath: root + "/" + entry)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        var name = "backup-" + formatter.string(from: now)
        var suffix = 1
        while manager.fileExists(atPath: root + "/" + name) {
            suffix += 1
            name = "backup-" + formatter.string(from: now) + "-\(suffix)"
        }
        let partial = root + "/" + name + ".partial"
        let manifest: BackupManifest
        do {
            manifest = try backup(connectionString: connectionString, to: partial, source: source, logger: logger)
        } catch {
            try? manager.removeItem(atPath: partial)
            throw error
        }
        let path = root + "/" + name
        try manager.moveItem(atPath: partial, toPath: path)
        try syncFile(root)
        let finished = scheduledBackups(in: root)
        for old in finished.dropLast(max(1, keep)) {
            try? manager.removeItem(atPath: root + "/" + old)
            logger.info("old backup removed", metadata: ["directory": "\(root)/\(old)"])
        }
        return (path, manifest)
    }

    // MARK: Internals

    static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    private static func syncFile(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        _ = fsync(descriptor)
    }

    /// Runs a client program to completion (stdin from /dev/null, stdout and stderr into a temporary file whose
    /// last 2,000 bytes go into the error); never passes the server's descriptors on.
    static func runTool(_ arguments: [String], logger: Logger) throws {
        let outputPath = NSTemporaryDirectory() + "switchboard-\(getpid())-\(UUID().uuidString).log"
        let output = open(outputPath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard output >= 0 else { throw EmbeddedPostgresError.spawnFailed(program: outputPath, errno: errno) }
        defer {
            close(output)
            unlink(outputPath)
        }
        let pid = try ChildProcess.spawn(arguments, output: output, environment: ProcessInfo.processInfo.environment)
        let status = ChildProcess.wait(pid)
        guard status != 0 else { return }
        let text = String(decoding: FileManager.default.contents(atPath: outputPath) ?? Data(), as: UTF8.self)
        let program = (arguments[0] as NSString).lastPathComponent
        throw PostgresBackupError.commandFailed(
            program: program, status: status,
            output: String(text.suffix(2000)).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}
