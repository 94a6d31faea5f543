//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a `stats.active_hours` or `stats.active_day` request was refused (docs/protocol.md "Active hours");
/// mapped to the wire in `wire`.
public enum ActiveHoursError: FeatureError, Equatable {
    /// A date parameter (`field`) is not `YYYY-MM-DD`.
    case badDate(field: String)
    /// `from` is after `to`.
    case fromAfterTo
    /// The range covers more than `max` dates.
    case tooManyDays(max: Int)
    /// The user is neither the caller nor one of its friends (one answer with a missing user).
    case notFound
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .badDate(let field): return ServiceError(.badRequest, "\(field): expected a date YYYY-MM-DD")
        case .fromAfterTo: return ServiceError(.badRequest, "from must not be after to")
        case .tooManyDays(let max): return ServiceError(.badRequest, "at most \(max) days")
        case .notFound: return ServiceError(.notFound, "no such user among your friends")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (a cause is not compared).
    public static func == (lhs: ActiveHoursError, rhs: ActiveHoursError) -> Bool { lhs.wire == rhs.wire }
}
