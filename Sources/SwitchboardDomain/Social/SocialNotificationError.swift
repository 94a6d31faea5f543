//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a social notifications request was refused (`notifications.*`, docs/protocol.md "Social notifications");
/// mapped to the wire in `wire`.
public enum SocialNotificationError: FeatureError, Equatable {
    /// `limit` (groups) outside 1...`max`.
    case pageLimit(max: Int)
    /// `before` is not positive.
    case badBefore
    /// `up_to` is negative.
    case badUpTo
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .pageLimit(let max): return ServiceError(.badRequest, "limit must be 1-\(max)")
        case .badBefore: return ServiceError(.badRequest, "before must be positive")
        case .badUpTo: return ServiceError(.badRequest, "up_to must not be negative")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: SocialNotificationError, rhs: SocialNotificationError) -> Bool { lhs.wire == rhs.wire }
}
