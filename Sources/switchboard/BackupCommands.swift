//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import Logging
import SwitchboardServer
import SwitchboardStore

/// Scheduled backups of `serve` (`docs/operations.md`).
struct BackupOptions: ParsableArguments {
    @Option(
        help:
            "Folder for scheduled backups (each in backup-<UTC time>/); with --backup-every. [env: SWITCHBOARD_BACKUP_DIR]"
    )
    var backupDir: String = env("SWITCHBOARD_BACKUP_DIR") ?? ""

    @Option(
        help:
            "Seconds between scheduled backups (the first after 10 s, or one interval if shorter); 0: none. [env: SWITCHBOARD_BACKUP_EVERY]"
    )
    var backupEvery: Double = envValue("SWITCHBOARD_BACKUP_EVERY", as: Double.self) ?? 0

    @Option(help: "Scheduled backups kept; older ones are removed after each new one. [env: SWITCHBOARD_BACKUP_KEEP]")
    var backupKeep: Int = envValue("SWITCHBOARD_BACKUP_KEEP", as: Int.self) ?? 7

    @Option(
        help:
            "Continuous WAL archiving of the embedded PostgreSQL into this folder (wal/, base/) for point-in-time restores. [env: SWITCHBOARD_WAL_ARCHIVE]"
    )
    var walArchive: String = env("SWITCHBOARD_WAL_ARCHIVE") ?? ""

    @Option(
        help:
            "Seconds after which a WAL segment is archived even if not full (the most recent changes an archive can lack). [env: SWITCHBOARD_WAL_ARCHIVE_TIMEOUT]"
    )
    var walArchiveTimeout: Int = envValue("SWITCHBOARD_WAL_ARCHIVE_TIMEOUT", as: Int.self) ?? 60

    @Option(
        help:
            "Seconds between base backups into the WAL archive (one at the start if the newest is older). [env: SWITCHBOARD_WAL_BASE_EVERY]"
    )
    var walBaseEvery: Double = envValue("SWITCHBOARD_WAL_BASE_EVERY", as: Double.self) ?? 86400

    @Option(help: "Base backups kept in the WAL archive, with the WAL they need. [env: SWITCHBOARD_WAL_BASE_KEEP]")
    var walBaseKeep: Int = envValue("SWITCHBOARD_WAL_BASE_KEEP", as: Int.self) ?? 2

    func validate() throws {
        guard walArchiveTimeout >= 1, walBaseEvery > 0, walBaseKeep >= 1 else {
            throw ValidationError(
                "--wal-archive-timeout and --wal-base-every must be positive, --wal-base-keep at least 1")
        }
        guard !walArchive.contains("'") else { throw ValidationError("--wal-archive must not contain a single quote") }
        guard backupEvery >= 0, backupKeep >= 1 else {
            throw ValidationError("--backup-every must not be negative and --backup-keep must be at least 1")
        }
        guard backupEvery == 0 || !backupDir.isEmpty else {
            throw ValidationError("--backup-every needs --backup-dir")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.backups.directory = backupDir.isEmpty ? nil : backupDir
        c.backups.interval = backupEvery
        c.backups.keep = backupKeep
        c.backups.firstDelay = min(10, backupEvery)
        c.backups.walArchive = walArchive.isEmpty ? nil : walArchive
        c.backups.walArchiveTimeout = walArchiveTimeout
        c.backups.walBaseInterval = walBaseEvery
        c.backups.walBaseKeep = walBaseKeep
    }
}

private func bootstrapCommandLogging() -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .info
        return handler
    }
    return Logger(label: "switchboard")
}

/// `switchboard backup --to DIR`: a consistent dump of the database while the server runs.
struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Back up the database (embedded or --database-url) into a new folder, while the server runs.",
        discussion: """
            Writes DIR/switchboard.dump (pg_dump, custom format, one consistent snapshot; voice clips included) \
            and DIR/manifest.json (schema version, snapshot time, sizes, row counts). DIR must be new or empty. \
            See docs/operations.md.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The new backup folder (created; must be empty).")
    var to: String

    func run() throws {
        let logger = bootstrapCommandLogging()
        let manifest: BackupManifest
        if database.databaseURL.isEmpty {
            manifest = try PostgresBackup.backupEmbedded(dataDirectory: database.dataDir, to: to, logger: logger)
        } else {
            manifest = try PostgresBackup.backup(
                connectionString: database.databaseURL, to: to, source: "external", logger: logger)
        }
        print(
            "backup of \(manifest.snapshotAt) in \(to): \(manifest.dumpBytes) bytes, schema version "
                + "\(manifest.schemaVersion), \(manifest.users) users, \(manifest.messages) messages, "
                + "\(manifest.voiceClips) voice clips")
    }
}

/// `switchboard restore --from DIR`: into an empty data folder (embedded) or an empty database.
struct Restore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Restore a backup into an empty data folder (embedded) or an empty database (--database-url).",
        discussion: """
            Refuses a target that already holds data. Restores in one transaction and checks the row counts \
            against the backup's manifest. Start the server on the target afterwards. See docs/operations.md.
            """)

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The backup folder (made by `switchboard backup` or a scheduled backup), or a --wal-archive folder.")
    var from: String

    @Option(
        help:
            "With a --wal-archive folder: the time to recover to (ISO 8601, e.g. 2026-11-24T13:30:00Z); default: everything archived."
    )
    var until: String?

    func validate() throws {
        if let until, Self.parse(until) == nil {
            throw ValidationError("--until must be an ISO 8601 time such as 2026-11-24T13:30:00Z")
        }
    }

    static func parse(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    func run() throws {
        let logger = bootstrapCommandLogging()
        let isArchive =
            FileManager.default.fileExists(atPath: from + "/base")
            && !FileManager.default.fileExists(atPath: from + "/" + PostgresBackup.manifestFileName)
        if isArchive || until != nil {
            guard database.databaseURL.isEmpty else {
                throw ValidationError(
                    "point-in-time restores (a --wal-archive folder, --until) are for the embedded PostgreSQL only")
            }
            let result = try WALArchive.restore(
                from: from, until: until.flatMap(Self.parse), dataDirectory: database.dataDir, logger: logger)
            print("restored base backup \(result.base) and the archived WAL up to \(result.until)")
            return
        }
        let manifest: BackupManifest
        if database.databaseURL.isEmpty {
            manifest = try PostgresBackup.restoreEmbedded(from: from, dataDirectory: database.dataDir, logger: logger)
        } else {
            manifest = try PostgresBackup.restore(from: from, connectionString: database.databaseURL, logger: logger)
        }
        print(
            "restored the backup of \(manifest.snapshotAt): schema version \(manifest.schemaVersion), "
                + "\(manifest.users) users, \(manifest.messages) messages, \(manifest.voiceClips) voice clips")
    }
}
