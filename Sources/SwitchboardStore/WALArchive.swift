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

/// Continuous WAL archiving of the embedded PostgreSQL, for point-in-time recovery.
///
/// ## Layout of an archive folder
/// - `wal/`: every finished WAL segment, copied there by PostgreSQL's `archive_command` (copy to `<name>.tmp`,
///   fsync, rename; an existing segment is never overwritten).
/// - `base/<UTC time>/`: physical base backups (`pg_basebackup`, plain format, with the WAL they need), each with
///   `base.json` (``WALArchive/BaseBackup``), written last.
///
/// A restore copies the newest base backup finished before the target time into a new data folder and replays
/// the archived WAL up to that time (`recovery_target_time`), then promotes.
public enum WALArchive {
    /// What `base.json` says about a base backup.
    public struct BaseBackup: Codable, Sendable {
        /// When `pg_basebackup` started and finished (ISO 8601, UTC); recovery can target any time after
        /// `finishedAt`.
        public var startedAt: String
        public var finishedAt: String
        /// The first WAL segment the base backup needs (older segments in `wal/` are not needed by it).
        public var startWALFile: String
    }

    /// The server settings that archive into `directory/wal` (`archive_timeout` bounds how old the newest
    /// archived change can be).
    public static func settings(directory: String, timeout: Int) -> [String: String] {
        let wal = absolute(directory) + "/wal"
        return [
            "archive_mode": "on",
            "archive_command":
                "test ! -f '\(wal)/%f' && cp '%p' '\(wal)/%f.tmp' && sync '\(wal)/%f.tmp' && "
                + "mv '\(wal)/%f.tmp' '\(wal)/%f'",
            "archive_timeout": "\(timeout)",
        ]
    }

    /// Creates `directory/wal` and `directory/base`; when running as root, gives `wal` to the PostgreSQL system
    /// user (its `archive_command` writes there) and lets it traverse `directory`.
    public static func prepare(directory: String) throws {
        let root = absolute(directory)
        guard !root.contains("'") else {
            throw PostgresBackupError.notABackup("a WAL archive path must not contain a single quote: \(root)")
        }
        let manager = FileManager.default
        try manager.createDirectory(atPath: root + "/wal", withIntermediateDirectories: true)
        try manager.createDirectory(atPath: root + "/base", withIntermediateDirectories: true)
        if geteuid() == 0, let user = getpwnam(EmbeddedPostgres.systemUser) {
            chown(root + "/wal", user.pointee.pw_uid, user.pointee.pw_gid)
            chmod(root + "/wal", 0o700)
            chmod(root, 0o711)
        }
    }

    /// The finished base backups (folder names under `base/`, oldest first) with their descriptions.
    public static func baseBackups(in directory: String) -> [(name: String, info: BaseBackup)] {
        let base = absolute(directory) + "/base"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).filter {
            !$0.hasSuffix(".partial")
        }
        return names.sorted().compactMap { name in
            guard let data = FileManager.default.contents(atPath: base + "/" + name + "/base.json"),
                let info = try? JSONDecoder().decode(BaseBackup.self, from: data)
            else { return nil }
            return (name, info)
        }
    }

    /// Takes a base backup of the embedded server at `connectionString` into `directory/base/<UTC time>`, then keeps
    /// the newest `keep` base backups and removes the WAL segments older than the oldest kept one needs.
    @discardableResult
    public static func takeBaseBackup(
        directory: String, connectionString: String, keep: Int, logger: Logger
    ) throws -> BaseBackup {
        let root = absolute(directory)
        try prepare(directory: root)
        let tools = try PostgresBackup.locateClients()
        let pgBasebackup = (tools.pgDump as NSString).deletingLastPathComponent + "/pg_basebackup"
        let manager = FileManager.default
        for entry in (try? manager.contentsOfDirectory(atPath: root + "/base")) ?? [] where entry.hasSuffix(".partial")
        {
            try? manager.removeItem(atPath: root + "/base/" + entry)
        }
        let started = Date()
        let name = timestampName(started)
        let partial = root + "/base/" + name + ".partial"
        do {
            try PostgresBackup.runTool(
                [
                    pgBasebackup, "--pgdata=\(partial)", "--format=plain", "--wal-method=stream",
                    "--checkpoint=fast", "--no-password", "--dbname=\(connectionString)",
                ], logger: logger)
        } catch {
            try? manager.removeItem(atPath: partial)
            throw error
        }
        let label = (try? String(contentsOfFile: partial + "/backup_label", encoding: .utf8)) ?? ""
        let startFile =
            label.split(separator: "\n").first { $0.hasPrefix("START WAL LOCATION:") }
            .flatMap { line -> String? in
                guard let open = line.range(of: "(file "),
                    let close = line.range(of: ")", range: open.upperBound..<line.endIndex)
                else { return nil }
                return String(line[open.upperBound..<close.lowerBound])
            } ?? ""
        let info = BaseBackup(
            startedAt: PostgresBackup.iso8601(started), finishedAt: PostgresBackup.iso8601(Date()),
            startWALFile: startFile)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(info).write(to: URL(fileURLWithPath: partial + "/base.json"))
        try manager.moveItem(atPath: partial, toPath: root + "/base/" + name)
        logger.info("base backup taken", metadata: ["directory": "\(root)/base/\(name)"])

        // Retention: the newest `keep` base backups, and the WAL from the oldest kept one's start on.
        let finished = baseBackups(in: root)
        for old in finished.dropLast(max(1, keep)) {
            try? manager.removeItem(atPath: root + "/base/" + old.name)
        }
        if let oldest = baseBackups(in: root).first, !oldest.info.startWALFile.isEmpty {
            for segment in (try? manager.contentsOfDirectory(atPath: root + "/wal")) ?? []
            where segment.count >= 24 && String(segment.prefix(24)) < oldest.info.startWALFile
                && !segment.hasSuffix(".history")
            {
                try? manager.removeItem(atPath: root + "/wal/" + segment)
            }
        }
        return info
    }

    /// Restores the archive into a new embedded PostgreSQL under `dataDirectory` (no cluster there yet) as of
    /// `until` (nil: everything archived): copies the newest base backup finished before `until`, replays the
    /// archived WAL to that time, promotes, stops.
    public static func restore(
        from directory: String, until: Date?, dataDirectory: String, logger: Logger
    ) throws -> (base: String, until: String) {
        let root = absolute(directory)
        let postgres = EmbeddedPostgres(dataDirectory: dataDirectory, logger: logger)
        let manager = FileManager.default
        if let entries = try? manager.contentsOfDirectory(atPath: postgres.clusterDirectory), !entries.isEmpty {
            throw PostgresBackupError.restoreTargetNotEmpty("the data folder \(postgres.dataDirectory)")
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let candidates = baseBackups(in: root).filter { entry in
            guard let until else { return true }
            return (formatter.date(from: entry.info.finishedAt) ?? .distantFuture) < until
        }
        guard let base = candidates.last else {
            throw PostgresBackupError.outsideArchive(
                "\(root)/base holds no base backup finished before \(until.map { PostgresBackup.iso8601($0) } ?? "now")"
            )
        }
        try manager.createDirectory(atPath: postgres.dataDirectory, withIntermediateDirectories: true)
        if manager.fileExists(atPath: postgres.clusterDirectory) {
            try manager.removeItem(atPath: postgres.clusterDirectory)
        }
        try manager.copyItem(atPath: root + "/base/" + base.name, toPath: postgres.clusterDirectory)
        chmod(postgres.clusterDirectory, 0o700)
        try? manager.removeItem(atPath: postgres.clusterDirectory + "/base.json")
        _ = manager.createFile(atPath: postgres.clusterDirectory + "/recovery.signal", contents: Data())
        var settings = [
            "restore_command": "cp '\(root)/wal/%f' '%p'",
            "recovery_target_action": "promote",
        ]
        let target = until.map { PostgresBackup.iso8601($0) }
        if let until {
            // PostgreSQL's parser for this setting does not take ISO 8601's `T`/`Z`.
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS"
            settings["recovery_target_time"] = formatter.string(from: until) + "+00"
        }
        let recovering = EmbeddedPostgres(
            dataDirectory: dataDirectory, logger: logger, settings: settings, startTimeout: .seconds(600))
        do {
            let connectionString = try recovering.start()
            // Connections are accepted once the replay is consistent; wait for the promotion at the target.
            let connection = try PostgresConnection(connectionString: connectionString, logger: logger)
            try connection.queue.sync {
                defer { connection.close() }
                let deadline = ContinuousClock.now + .seconds(600)
                while try connection.query("SELECT pg_is_in_recovery() AS r")[0].bool("r") == true {
                    guard ContinuousClock.now < deadline else {
                        throw PostgresBackupError.verificationFailed("recovery did not finish within 600 s")
                    }
                    Thread.sleep(forTimeInterval: 0.1)
                }
            }
            recovering.stop()
        } catch {
            recovering.stop()
            try? manager.removeItem(atPath: postgres.clusterDirectory)
            let log = (try? String(contentsOfFile: postgres.logPath, encoding: .utf8)) ?? ""
            if let target, log.contains("recovery ended before configured recovery target was reached") {
                throw PostgresBackupError.outsideArchive(
                    "the archive ends before \(target) (omit --until to restore everything archived); "
                        + "see \(postgres.logPath)"
                )
            }
            throw error
        }
        logger.info(
            "point-in-time restore finished", metadata: ["base": "\(base.name)", "until": "\(target ?? "end")"])
        return (base.name, target ?? "the end of the archive")
    }

    static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return URL(fileURLWithPath: full).standardizedFileURL.path
    }

    static func timestampName(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return formatter.string(from: date)
    }
}
