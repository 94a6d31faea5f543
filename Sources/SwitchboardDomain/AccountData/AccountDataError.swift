//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why an account deletion or data export request was refused (`account.delete`, `account.export`,
/// `account.exports`; docs/protocol.md "Account deletion and export"); mapped to the wire in `wire`.
public enum AccountDataError: FeatureError, Equatable {
    /// `account.delete`: the password check refused (wrong password, too many attempts, hashers busy).
    case password(IdentityError)
    /// The account does not exist or is already deleted.
    case noSuchAccount
    /// `account.export`: one of the caller's exports is still being built.
    case exportInProgress
    /// `account.export`: `perDay` exports were requested in the last 24 hours; the oldest leaves the window in
    /// `retryAfterMilliseconds`.
    case exportsPerDay(Int, retryAfterMilliseconds: Int64)
    /// An export row just inserted was not returned (an invariant violation).
    case exportNotStored
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .password(let refusal): return refusal.wire
        case .noSuchAccount: return ServiceError(.notFound, "no such account")
        case .exportInProgress:
            return ServiceError(.rateLimited, "an export is already being built", extra: ["retry_after_ms": 5_000])
        case .exportsPerDay(let perDay, let retryAfter):
            return ServiceError(.rateLimited, "at most \(perDay) exports a day", extra: ["retry_after_ms": retryAfter])
        case .exportNotStored: return ServiceError(.internal, "internal error", underlying: self)
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (a cause is not compared).
    public static func == (lhs: AccountDataError, rhs: AccountDataError) -> Bool { lhs.wire == rhs.wire }
}
