//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The connection state of a `RedisClient` or `RedisSubscriber`, as reported to its state handler.
public enum RedisConnectionState: Sendable, Equatable, CustomStringConvertible {
    /// The first connect is under way.
    case connecting
    /// Connected (and, for a subscriber, every channel resubscribed and confirmed).
    case connected
    /// The connection was lost or could not be made; reconnect attempts continue with backoff.
    case disconnected(RedisError)
    /// Closed by its owner; final.
    case closed

    public var description: String {
        switch self {
        case .connecting: return "connecting"
        case .connected: return "connected"
        case .disconnected(let error): return "disconnected (\(error))"
        case .closed: return "closed"
        }
    }
}
