//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Errors of ``PostgresBackup``.
public enum PostgresBackupError: Error, Sendable, CustomStringConvertible {
    /// `pg_dump`/`pg_restore` were not found.
    case clientNotFound(searched: [String])
    /// The backup target folder is not empty.
    case backupTargetNotEmpty(String)
    /// The restore target (a data folder or a database) already holds data.
    case restoreTargetNotEmpty(String)
    /// The folder is not a finished backup (no readable `manifest.json`, or its dump is missing).
    case notABackup(String)
    /// A client program failed.
    case commandFailed(program: String, status: Int32, output: String)
    /// After a restore, the row counts differ from the manifest's.
    case verificationFailed(String)
    /// The data folder to back up holds no embedded PostgreSQL.
    case noCluster(String)
    /// A point-in-time restore's target lies outside what the WAL archive covers.
    case outsideArchive(String)

    public var description: String {
        switch self {
        case .clientNotFound(let searched):
            return "PostgreSQL client programs (pg_dump, pg_restore) not found (searched: "
                + searched.joined(separator: ", ")
                + "). Install them with `apt-get install postgresql-client`, or set SWITCHBOARD_PG_BIN to the folder "
                + "that holds them."
        case .backupTargetNotEmpty(let path):
            return "\(path) is not empty: back up into a new or empty folder (a backup is never overwritten)"
        case .restoreTargetNotEmpty(let what):
            return "refusing to restore: \(what) already holds data; restore into an empty data folder or database"
        case .notABackup(let reason):
            return "not a finished backup: \(reason)"
        case .commandFailed(let program, let status, let output):
            return "\(program) failed with status \(status): \(output)"
        case .verificationFailed(let reason):
            return "the restored database does not match the backup's manifest: \(reason)"
        case .outsideArchive(let reason):
            return "cannot restore to that time: \(reason)"
        case .noCluster(let path):
            return "\(path) holds no PostgreSQL cluster: is --data-dir (or --database-url) right?"
        }
    }
}
