//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol
import SwitchboardStore

/// A refused account or friends operation: a wire error code and a human-readable message.
public struct ServiceError: Error, Equatable, Sendable {
    public var code: ErrorCode
    public var message: String
    /// Extra integer fields of the error reply (`retry_after_ms`).
    public var extra: [String: Int64]
    /// A `weak_password` reason.
    public var reason: String?
    /// The error this one was made from (``from(_:)``), for the log line of an `internal` answer; never on the
    /// wire and not part of equality.
    public var underlying: (any Error)?

    public init(
        _ code: ErrorCode, _ message: String, extra: [String: Int64] = [:], reason: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.extra = extra
        self.reason = reason
        self.underlying = underlying
    }

    public static func == (lhs: ServiceError, rhs: ServiceError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.extra == rhs.extra && lhs.reason == rhs.reason
    }

    /// Milliseconds a client is asked to wait when the database pool's wait queue is full.
    public static let overloadedRetryAfterMilliseconds: Int64 = 200

    /// Maps store failures: never leaks SQL or values to the wire; the cause is kept in ``underlying``.
    public static func from(_ error: any Error) -> ServiceError {
        if let e = error as? ServiceError { return e }
        if let e = error as? PostgresError {
            if e.kind == .overloaded {
                return ServiceError(
                    .unavailable, "the server is busy; retry shortly",
                    extra: ["retry_after_ms": overloadedRetryAfterMilliseconds], underlying: e)
            }
            if e.isConnectionProblem {
                return ServiceError(.unavailable, "the database is unavailable; retry shortly", underlying: e)
            }
        }
        return ServiceError(.internal, "internal error", underlying: error)
    }
}
