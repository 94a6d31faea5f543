//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a handle request was refused (`handle.set`, docs/protocol.md "Profiles, handles and follows"); mapped to
/// the wire in `wire`.
public enum HandleError: FeatureError, Equatable {
    /// Not 3 to 30 letters, digits or underscores (`Handle.validate`).
    case invalid
    /// A reserved word (`admin`, `support`, ...).
    case reserved
    /// Someone else has it.
    case taken
    /// The caller's account is gone.
    case noSuchUser
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .invalid: return ServiceError(.badRequest, "a handle is 3 to 30 letters, digits or underscores")
        case .reserved: return ServiceError(.badRequest, "this handle is reserved")
        case .taken: return ServiceError(.handleTaken, "this handle is taken")
        case .noSuchUser: return ServiceError(.notFound, "no such user")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: HandleError, rhs: HandleError) -> Bool { lhs.wire == rhs.wire }
}
