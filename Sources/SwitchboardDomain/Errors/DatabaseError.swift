//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why the database could not do what a service asked. Made from the store's own errors once, at the seam
/// (`Database` in SwitchboardCore), so that no feature inspects SQLSTATEs or libpq failures; never carries SQL or
/// values to the wire.
public enum DatabaseError: Error, Sendable {
    /// The pool's wait queue is full: the server is busy (`unavailable` with `retry_after_ms`).
    case overloaded
    /// The database did not answer: its connection was lost or the server is down (`unavailable`).
    case unavailable(underlying: any Error)
    /// The database gave up waiting: a lock held by another transaction longer than the session's lock timeout,
    /// or a statement past its statement timeout. Nothing was done (`unavailable` with `retry_after_ms`).
    case timedOut(underlying: any Error)
    /// The request was cancelled (its connection closed) before the database ran its work.
    case cancelled
    /// The account the request acts for was deleted (`ActingAccount`): nothing was done (`not_authenticated`).
    case accountDeleted
    /// Anything else: a statement failed where the rules said it could not (an invariant violation or a bug),
    /// answered `internal` and logged with its cause.
    case failed(underlying: any Error)

    /// The wire answer: never the cause's text, which stays in `underlying` for the log.
    public var wire: ServiceError {
        switch self {
        case .overloaded:
            return ServiceError(
                .unavailable, "the server is busy; retry shortly",
                extra: ["retry_after_ms": ServiceError.overloadedRetryAfterMilliseconds], underlying: self)
        case .unavailable(let underlying):
            return ServiceError(.unavailable, "the database is unavailable; retry shortly", underlying: underlying)
        case .timedOut(let underlying):
            return ServiceError(
                .unavailable, "the data is busy; retry shortly",
                extra: ["retry_after_ms": ServiceError.overloadedRetryAfterMilliseconds], underlying: underlying)
        case .cancelled:
            return ServiceError(.unavailable, "the request was cancelled", underlying: self)
        case .accountDeleted:
            return ServiceError(.notAuthenticated, "the account was deleted", underlying: self)
        case .failed(let underlying):
            return ServiceError(.internal, "internal error", underlying: underlying)
        }
    }
}
