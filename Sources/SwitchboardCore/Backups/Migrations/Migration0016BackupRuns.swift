//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension Migration {
    /// Scheduled backups on one node at a time: every finished scheduled backup leaves a row (which node, where, when)
    /// so that the other nodes of a cluster, sharing the database, skip their turn instead of dumping it again
    /// (`BackupRunRepository`, docs/operations.md "Scheduled backups").
    public static let v0016BackupRuns = Migration(
        version: 16, name: "scheduled backup runs",
        sql: """
            CREATE TABLE backup_runs (
                id          BIGSERIAL PRIMARY KEY,
                node        TEXT NOT NULL,
                path        TEXT NOT NULL,
                finished_at TIMESTAMPTZ NOT NULL DEFAULT now()
            );
            CREATE INDEX backup_runs_by_time ON backup_runs (finished_at DESC);
            """
    )
}
