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
            """
            With a --wal-archive folder: the time to recover to (ISO 8601, e.g. 2026-11-24T13:30:00Z); default: \
            everything archived.
            """
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
