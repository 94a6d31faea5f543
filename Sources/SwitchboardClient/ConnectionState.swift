//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Where the client's connection stands.
public enum ConnectionState: Sendable, Equatable {
    /// Not connected and not trying (before `connect()`, or a drop without a session to resume).
    case disconnected
    /// A connection attempt is under way.
    case connecting
    /// The WebSocket is open but no session is authenticated on it.
    case connected
    /// Re-authenticating with the stored token (and resuming) on a new connection.
    case authenticating
    /// A session is authenticated on the connection.
    case authenticated(userId: Int64)
    /// The connection dropped; attempt `attempt` starts after `delay` seconds.
    case reconnecting(attempt: Int, delay: Double)
    /// The client stopped for good.
    case closed(CloseReason)
}
