//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain
import SwitchboardStore

extension DatabaseError {
    /// Classifies a failure from the store (or anything a transaction's body threw that no feature claimed): the pool's
    /// full queue, a lock or statement timeout, a lost connection, a cancelled wait, or a failure that is a bug. The
    /// only place that reads `PostgresError`'s kinds for the wire.
    public init(_ error: any Error) {
        if let own = error as? DatabaseError {
            self = own
        } else if error is CancellationError {
            self = .cancelled
        } else if let e = error as? PostgresError, e.kind == .overloaded {
            self = .overloaded
        } else if let e = error as? PostgresError, e.isTimeout {
            self = .timedOut(underlying: e)
        } else if let e = error as? PostgresError, e.isConnectionProblem {
            self = .unavailable(underlying: e)
        } else {
            self = .failed(underlying: error)
        }
    }
}

extension ServiceError {
    /// The wire answer for any error a request's work threw: a `WireMappable` error's own answer, a store failure
    /// classified by `DatabaseError`. Never leaks SQL or values to the wire; the cause is kept in `underlying`.
    public static func from(_ error: any Error) -> ServiceError {
        if let e = error as? ServiceError { return e }
        if let e = error as? any WireMappable { return e.wire }
        if error is CancellationError { return ServiceError(.internal, "internal error", underlying: error) }
        return DatabaseError(error).wire
    }
}
