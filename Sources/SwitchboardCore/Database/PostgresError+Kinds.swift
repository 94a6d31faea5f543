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
    /// connection exception, 57P01-57P05 shutdown, crash, cannot connect now, idle timeouts): a failure of the
    /// database, not of the statement; whether a COMMIT sent just before took effect is unknown.
    public var isConnectionProblem: Bool {
        switch kind {
        case .connectionFailed, .connectionLost, .closed: return true
        case .server: return sqlState.map { $0.hasPrefix("08") || $0.hasPrefix("57P") } ?? false
        default: return false
        }
    }

    /// The statement was refused because of the data it carried (SQLSTATE class 22 data exception, 23
    /// integrity constraint violation, 54 program limit exceeded such as an index row too large): retrying
    /// other writes without it can succeed.
    public var isDataProblem: Bool {
        guard kind == .server, let sqlState else { return false }
        return sqlState.hasPrefix("22") || sqlState.hasPrefix("23") || sqlState.hasPrefix("54")
    }
}
