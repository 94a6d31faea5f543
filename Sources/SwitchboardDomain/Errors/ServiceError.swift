//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

/// An error answer as it goes on the wire: a code from the documented list, a human-readable message, extra
/// integer fields and a reason. Features throw their own typed errors (`FeatureError`), mapped to this once, at
/// the edge.
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
}
