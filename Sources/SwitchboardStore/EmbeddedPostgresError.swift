//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Errors from ``EmbeddedPostgres``.
public enum EmbeddedPostgresError: Error, Sendable, CustomStringConvertible {
    /// `initdb` and `postgres` were not found in any of the searched folders.
    case binariesNotFound(searched: [String])
    /// A child process could not be started (`posix_spawn` failed with `errno`).
    case spawnFailed(program: String, errno: Int32)
    /// A setup command (`initdb`, `useradd`, `chown`) exited with a non-zero status.
    case commandFailed(program: String, status: Int32, logPath: String)
    /// `postgres` exited during start-up or did not accept connections in time.
    case startFailed(reason: String, logPath: String)

    /// A readable explanation, with the install hint for missing binaries.
    public var description: String {
        switch self {
        case .binariesNotFound(let searched):
            return "PostgreSQL server binaries (initdb, postgres) not found (searched: "
                + searched.joined(separator: ", ")
                + "). Install them with `apt-get install postgresql` (Debian/Ubuntu), or set SWITCHBOARD_PG_BIN to "
                + "the folder that holds initdb and postgres."
        case .spawnFailed(let program, let code):
            return "Could not start \(program): \(String(cString: strerror(code)))"
        case .commandFailed(let program, let status, let logPath):
            return "\(program) failed with status \(status); see \(logPath)"
        case .startFailed(let reason, let logPath):
            return "PostgreSQL did not start: \(reason); see \(logPath)"
        }
    }
}
