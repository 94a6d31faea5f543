//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardStore

/// Scheduled backups (docs/operations.md "Backups"): the feature owns the table that keeps them to one node of a
/// cluster at a time (`backup_runs`). It has no ops or routes; ``BackupScheduler`` runs the schedule and is started
/// with the server (it needs the database's connection string, not the pool).
struct BackupsFeature: Feature {
    static let migrations: [Migration] = [.v0016BackupRuns]

    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {}
}
