//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why the client stopped for good (it does not reconnect after these).
public enum CloseReason: Sendable, Equatable, CustomStringConvertible {
    /// `close()` was called.
    case closedByUser
    /// The session was revoked (close 4001, or `invalid_token` when re-authenticating).
    case sessionRevoked
    /// The reconnect policy gave up (or is disabled) after the connection dropped.
    case reconnectFailed
    /// `logout` succeeded.
    case loggedOut
    /// An administrator suspended the account (close 4004, or `account_suspended` when re-authenticating).
    case accountSuspended

    public var description: String {
        switch self {
        case .closedByUser: return "closed by the user"
        case .sessionRevoked: return "session revoked"
        case .reconnectFailed: return "reconnecting failed"
        case .loggedOut: return "logged out"
        case .accountSuspended: return "account suspended"
        }
    }
}
