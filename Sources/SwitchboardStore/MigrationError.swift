//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Errors from ``Migrator``.
public enum MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The database records a schema version newer than any migration this code knows: refuse to run old code
    /// against a newer schema.
    case databaseNewerThanCode(databaseVersion: Int, codeVersion: Int)
    /// The migration list has a non-positive or duplicate version.
    case invalidMigrationList(version: Int)

    /// A readable explanation.
    public var description: String {
        switch self {
        case .databaseNewerThanCode(let databaseVersion, let codeVersion):
            return "The database schema is at version \(databaseVersion), newer than this build knows "
                + "(\(codeVersion)); refusing to start. Upgrade Switchboard or restore a matching database."
        case .invalidMigrationList(let version):
            return "The migration list is invalid at version \(version) (versions must be positive and unique)."
        }
    }
}
