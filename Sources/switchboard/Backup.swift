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
