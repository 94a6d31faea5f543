//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One schema migration: trusted, constant SQL (may hold several statements) applied once, in version order.
public struct Migration: Sendable, Hashable {
    /// The schema version this migration produces (positive, unique, increasing).
    public let version: Int
    /// A short name, recorded in `schema_migrations`.
    public let name: String
    /// The SQL to run (constant text from the code base, never user input).
    public let sql: String

    /// Creates a migration.
    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
