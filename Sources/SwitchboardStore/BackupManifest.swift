//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a backup folder holds besides the dump: written last, so a folder without it is not a finished backup.
public struct BackupManifest: Codable, Sendable, Equatable {
    /// The layout of the folder (this is 1).
    public var format: Int
    /// When the dump's snapshot was taken (ISO 8601, UTC): it holds every transaction committed before.
    public var snapshotAt: String
    /// When the dump was complete (ISO 8601, UTC).
    public var finishedAt: String
    /// The highest applied schema migration.
    public var schemaVersion: Int
    /// The dump file's name inside the folder (PostgreSQL's custom format, `pg_restore` reads it).
    public var dumpFile: String
    /// The dump file's size.
    public var dumpBytes: Int64
    /// `pg_database_size` of the source when the snapshot was taken.
    public var databaseBytes: Int64
    /// Rows in the snapshot, checked again after a restore.
    public var users: Int64
    public var messages: Int64
    public var voiceClips: Int64
    /// `server_version` of the source.
    public var postgresVersion: String
    /// `embedded` or `external`.
    public var source: String
}
