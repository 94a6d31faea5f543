//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardTransport

/// Scheduled backups: every `interval` seconds a `pg_dump` into `<directory>/backup-<UTC time>`, keeping the
/// newest `keep`.
public struct BackupSchedule: Sendable, Equatable {
    /// Where the backups go; nil: no scheduled backups.
    public var directory: String?
    /// Seconds between backups; 0: none.
    public var interval: Double = 0
    /// Finished backups kept (the oldest beyond are removed after each new one).
    public var keep: Int = 7
    /// Seconds after the start before the first backup.
    public var firstDelay: Double = 10
    /// Continuous WAL archiving of the embedded PostgreSQL into this folder (`wal/`, `base/`); nil: none.
    public var walArchive: String?
    /// Seconds after which PostgreSQL archives a WAL segment even if it is not full (`archive_timeout`).
    public var walArchiveTimeout: Int = 60
    /// Seconds between base backups into the WAL archive (one at the start if the newest is older).
    public var walBaseInterval: Double = 86400
    /// Base backups kept in the WAL archive (and the WAL they need).
    public var walBaseKeep: Int = 2

    public init() {}

    /// Whether backups are scheduled.
    public var isEnabled: Bool { directory != nil && interval > 0 }
}
