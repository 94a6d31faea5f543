//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// `serve`'s account deletion and data export options (docs/protocol.md, "Account deletion and export").
struct AccountOptions: ParsableArguments {
    @Option(
        help:
            """
            Folder of data export archives (shared by every node of a cluster); default: exports/ in --data-dir. [env: \
            SWITCHBOARD_EXPORT_DIR]
            """
    )
    var exportDir: String = env("SWITCHBOARD_EXPORT_DIR") ?? ""

    @Option(help: "Largest data export archive, bytes. [env: SWITCHBOARD_EXPORT_MAX_BYTES]")
    var exportMaxBytes: Int = envValue("SWITCHBOARD_EXPORT_MAX_BYTES", as: Int.self) ?? 256 << 20

    @Option(help: "Seconds a ready data export stays downloadable. [env: SWITCHBOARD_EXPORT_TTL]")
    var exportTtl: Double = envValue("SWITCHBOARD_EXPORT_TTL", as: Double.self) ?? 86_400

    @Option(help: "Data exports one user may request in 24 hours. [env: SWITCHBOARD_EXPORTS_PER_DAY]")
    var exportsPerDay: Int = envValue("SWITCHBOARD_EXPORTS_PER_DAY", as: Int.self) ?? 3

    @Option(
        help:
            """
            Data export downloads served at once (each holds its archive in memory; 503 beyond). [env: \
            SWITCHBOARD_EXPORT_DOWNLOADS]
            """
    )
    var exportDownloads: Int = envValue("SWITCHBOARD_EXPORT_DOWNLOADS", as: Int.self) ?? 4

    @Option(
        help: "Rows one account deletion batch (one transaction) changes at most. [env: SWITCHBOARD_DELETION_BATCH]")
    var deletionBatch: Int = envValue("SWITCHBOARD_DELETION_BATCH", as: Int.self) ?? 500

    @Option(
        help:
            """
            Seconds between account deletion batches (for tests; 0 in production). [env: \
            SWITCHBOARD_DELETION_BATCH_PAUSE]
            """
    )
    var deletionBatchPause: Double = envValue("SWITCHBOARD_DELETION_BATCH_PAUSE", as: Double.self) ?? 0

    @Option(
        help: "Seconds between sweeps resuming account deletions and exports. [env: SWITCHBOARD_ACCOUNT_SWEEP_INTERVAL]"
    )
    var accountSweepInterval: Double = envValue("SWITCHBOARD_ACCOUNT_SWEEP_INTERVAL", as: Double.self) ?? 60

    func validate() throws {
        guard exportMaxBytes >= 1024, exportTtl > 0, exportsPerDay >= 1, exportDownloads >= 1, deletionBatch >= 1,
            deletionBatchPause >= 0, accountSweepInterval >= 0.5
        else {
            throw ValidationError(
                """
                --export-max-bytes must be at least 1024, --export-ttl positive, --exports-per-day, --export-downloads \
                and --deletion-batch at least 1, --deletion-batch-pause at least 0, --account-sweep-interval at least \
                0.5
                """
            )
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.account.exportDirectory = exportDir.isEmpty ? nil : exportDir
        c.account.exportMaxBytes = exportMaxBytes
        c.account.exportTTL = exportTtl
        c.account.exportsPerDay = exportsPerDay
        c.account.maxConcurrentDownloads = exportDownloads
        c.account.deletionBatchSize = deletionBatch
        c.account.deletionBatchPause = deletionBatchPause
        c.account.sweepInterval = accountSweepInterval
    }
}
