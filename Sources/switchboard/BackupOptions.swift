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
            """
            Folder for scheduled backups (each in backup-<UTC time>/); with --backup-every. [env: \
            SWITCHBOARD_BACKUP_DIR]
            """
    )
    var backupDir: String = env("SWITCHBOARD_BACKUP_DIR") ?? ""

    @Option(
        help:
            """
            Seconds between scheduled backups (the first after 10 s, or one interval if shorter); 0: none. [env: \
            SWITCHBOARD_BACKUP_EVERY]
            """
    )
    var backupEvery: Double = envValue("SWITCHBOARD_BACKUP_EVERY", as: Double.self) ?? 0

    @Option(help: "Scheduled backups kept; older ones are removed after each new one. [env: SWITCHBOARD_BACKUP_KEEP]")
    var backupKeep: Int = envValue("SWITCHBOARD_BACKUP_KEEP", as: Int.self) ?? 7

    @Option(
        help:
            """
            Continuous WAL archiving of the embedded PostgreSQL into this folder (wal/, base/) for point-in-time \
            restores. [env: SWITCHBOARD_WAL_ARCHIVE]
            """
    )
    var walArchive: String = env("SWITCHBOARD_WAL_ARCHIVE") ?? ""

    @Option(
        help:
            """
            Seconds after which a WAL segment is archived even if not full (the most recent changes an archive can \
            lack). [env: SWITCHBOARD_WAL_ARCHIVE_TIMEOUT]
            """
    )
    var walArchiveTimeout: Int = envValue("SWITCHBOARD_WAL_ARCHIVE_TIMEOUT", as: Int.self) ?? 60

    @Option(
        help:
            """
            Seconds between base backups into the WAL archive (one at the start if the newest is older). [env: \
            SWITCHBOARD_WAL_BASE_EVERY]
            """
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
