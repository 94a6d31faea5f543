//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardStore

extension PostgresError {
    /// The connection failed, broke or was closed, or the server ended the session (SQLSTATE class 08
    /// connection exception, 57P01-57P05 shutdown, crash, cannot connect now, idle timeouts, 25P03 the
    /// idle-in-transaction timeout): a failure of the database, not of the statement; whether a COMMIT sent just
    /// before took effect is unknown.
    public var isConnectionProblem: Bool {
        switch kind {
        case .connectionFailed, .connectionLost, .closed: return true
        case .server: return sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P") || $0 == "25P03" } ?? false
        default: return false
        }
    }

    /// The session's limits stopped a wait (`PostgresSessionTimeouts`): SQLSTATE 55P03 lock not available (the lock
    /// timeout) or 57014 query cancelled (the statement timeout); or PostgreSQL broke a deadlock by ending this
    /// transaction (40P01: two writes of one account that both change a key of its row, each holding the
    /// `ActingAccount` lock the other needs). The statement did nothing; its transaction is rolled back, and a retry
    /// can succeed once the holder of the lock is done.
    public var isTimeout: Bool {
        guard kind == .server, let sqlState else { return false }
        return sqlState == "55P03" || sqlState == "57014" || sqlState == "40P01"
    }

    /// The statement was refused because of the data it carried (SQLSTATE class 22 data exception, 23
    /// integrity constraint violation, 54 program limit exceeded such as an index row too large): retrying
    /// other writes without it can succeed.
    public var isDataProblem: Bool {
        guard kind == .server, let sqlState else { return false }
        return sqlState.hasPrefix("22") || sqlState.hasPrefix("23") || sqlState.hasPrefix("54")
    }
}
