//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Where the PostgreSQL server programs live.
public struct PostgresBinaries: Sendable, Hashable {
    /// The folder holding `initdb` and `postgres`.
    public let directory: String
    /// The `initdb` program.
    public var initdb: String { directory + "/initdb" }
    /// The `postgres` server program.
    public var postgres: String { directory + "/postgres" }

    /// Names a folder holding `initdb` and `postgres` (not checked).
    public init(directory: String) {
        self.directory = directory
    }
}
