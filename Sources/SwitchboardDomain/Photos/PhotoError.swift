//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a request about one's photos or avatar was refused (`photos.*`, `profile.avatar.*`, `GET /photos/{id}/info`;
/// docs/protocol.md "Photos and avatars"); mapped to the wire in `wire`.
public enum PhotoError: FeatureError, Equatable {
    /// A page size outside 1...`max`.
    case pageLimit(max: Int)
    /// The photo does not exist, or is not the caller's (for the ops), or the caller may not see it (`PhotoAccess`,
    /// for its info): one answer, so that ids cannot be probed.
    case noSuchPhoto
    /// The caller's account is gone.
    case noSuchUser
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .pageLimit(let max): return ServiceError(.badRequest, "limit must be 1 to \(max)")
        case .noSuchPhoto: return ServiceError(.notFound, "no such photo")
        case .noSuchUser: return ServiceError(.notFound, "no such user")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: PhotoError, rhs: PhotoError) -> Bool { lhs.wire == rhs.wire }
}
