//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a Redis command or connection failed. Descriptions never carry the password or command arguments.
public enum RedisError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not connected (Redis down, reconnecting, or not yet connected): the command was not sent.
    case unavailable
    /// The connection broke after the command was written: it may or may not have run.
    case connectionLost(String)
    /// No reply within the command timeout; the connection was closed and is being re-established.
    case timeout
    /// `maxPendingCommands` commands are already waiting: the command was not sent.
    case overloaded
    /// Redis answered with an error reply (`ERR ...`, `NOSCRIPT ...`, `WRONGPASS ...`).
    case server(String)
    /// The server sent bytes that are not RESP2 (or a reply past the configured limits).
    case protocolError(String)
    /// Connecting failed: address resolution, TCP connect, TLS handshake, AUTH or SELECT.
    case connectFailed(String)
    /// The configuration (URL or options) is invalid.
    case invalidConfiguration(String)
    /// The client or subscriber was closed.
    case closed

    public var description: String {
        switch self {
        case .unavailable: return "Redis unavailable (not connected)"
        case .connectionLost(let why): return "Redis connection lost: \(why)"
        case .timeout: return "Redis command timed out"
        case .overloaded: return "Redis client overloaded (too many pending commands)"
        case .server(let message): return "Redis error reply: \(message)"
        case .protocolError(let why): return "Redis protocol error: \(why)"
        case .connectFailed(let why): return "Redis connect failed: \(why)"
        case .invalidConfiguration(let why): return "Redis configuration: \(why)"
        case .closed: return "Redis client closed"
        }
    }

    /// The error code of a server error reply (its first word: `ERR`, `NOSCRIPT`, `WRONGPASS`, ...).
    public var serverCode: Substring? {
        guard case .server(let message) = self else { return nil }
        return message.split(separator: " ", maxSplits: 1).first
    }
}
