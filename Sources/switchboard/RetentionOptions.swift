//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// How long `serve` keeps call records, deleted-message leftovers and revoked sessions (the retention sweep,
/// docs/operations.md).
struct RetentionOptions: ParsableArguments {
    @Option(
        help:
            """
            Days an ended call's record (call history) is kept; 0: forever. [env: SWITCHBOARD_RETAIN_CALL_RECORDS_DAYS]
            """
    )
    var retainCallRecordsDays: Int = envValue("SWITCHBOARD_RETAIN_CALL_RECORDS_DAYS", as: Int.self) ?? 365

    @Option(
        help: """
            Days a deleted message keeps its leftovers (client id, voice clip, reactions); the tombstone itself stays. \
            0: forever. [env: SWITCHBOARD_RETAIN_TOMBSTONES_DAYS]
            """)
    var retainTombstonesDays: Int = envValue("SWITCHBOARD_RETAIN_TOMBSTONES_DAYS", as: Int.self) ?? 30

    @Option(
        help:
            """
            Days a revoked (logged-out) session's row is kept; 0: forever. [env: \
            SWITCHBOARD_RETAIN_EXPIRED_SESSIONS_DAYS]
            """
    )
    var retainExpiredSessionsDays: Int = envValue("SWITCHBOARD_RETAIN_EXPIRED_SESSIONS_DAYS", as: Int.self) ?? 30

    @Option(help: "Seconds between retention sweeps. [env: SWITCHBOARD_RETENTION_SWEEP_INTERVAL]")
    var retentionSweepInterval: Double = envValue("SWITCHBOARD_RETENTION_SWEEP_INTERVAL", as: Double.self) ?? 3600

    @Option(help: "Rows one retention batch (one transaction) removes at most. [env: SWITCHBOARD_RETENTION_BATCH_SIZE]")
    var retentionBatchSize: Int = envValue("SWITCHBOARD_RETENTION_BATCH_SIZE", as: Int.self) ?? 500

    func validate() throws {
        guard retainCallRecordsDays >= 0, retainTombstonesDays >= 0, retainExpiredSessionsDays >= 0 else {
            throw ValidationError("--retain-*-days must be 0 (keep forever) or more")
        }
        guard retentionSweepInterval >= 1, retentionBatchSize >= 1 else {
            throw ValidationError(
                "--retention-sweep-interval must be at least 1 second, --retention-batch-size at least 1")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.retention.callRecordsDays = retainCallRecordsDays
        c.retention.tombstonesDays = retainTombstonesDays
        c.retention.expiredSessionsDays = retainExpiredSessionsDays
        c.retention.sweepInterval = retentionSweepInterval
        c.retention.batchSize = retentionBatchSize
    }
}
