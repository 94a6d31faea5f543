//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// An error reply of the server: `{"code", "message", "retry_after_ms"?, "reason"?}`. The protocol's own
/// `ReplyError` (one type: the client's name for it).
public typealias ServerError = ReplyError

/// Why a request or a connection failed.
public enum SwitchboardClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered with an error.
    case server(ServerError)
    /// No reply within the request's timeout (the request may still take effect on the server).
    case timeout(op: String)
    /// The connection dropped after the request was sent and the op is not safe to resend; whether it took
    /// effect is unknown.
    case connectionLost(op: String)
    /// A connection attempt failed (TCP, TLS, or an upgrade the server refused); the text says how.
    case connectFailed(String)
    /// The client is closed (`close()`, a revoked session, or reconnecting gave up).
    case closed(CloseReason)
    /// Too many requests are waiting for a connection (`ClientConfiguration.maxQueuedRequests`).
    case tooManyQueuedRequests
    /// A reply or parameter that could not be encoded or decoded; the text names the field.
    case invalidMessage(String)
    /// The calling task was cancelled.
    case cancelled

    /// The server's error code, when this is a server error.
    public var serverCode: ErrorCode? {
        if case .server(let e) = self { return e.errorCode }
        return nil
    }

    public var description: String {
        switch self {
        case .server(let e): return "server error \(e)"
        case .timeout(let op): return "\(op): no reply in time"
        case .connectionLost(let op): return "\(op): the connection dropped before the reply"
        case .connectFailed(let why): return "could not connect: \(why)"
        case .closed(let reason): return "the client is closed (\(reason))"
        case .tooManyQueuedRequests: return "too many requests are waiting for the connection"
        case .invalidMessage(let why): return "invalid message: \(why)"
        case .cancelled: return "cancelled"
        }
    }
}
