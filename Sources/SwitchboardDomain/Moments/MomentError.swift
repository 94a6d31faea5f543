//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a moments request was refused (`moments.*`, docs/protocol.md "Moments"); mapped to the wire in `wire`.
public enum MomentError: FeatureError, Equatable {
    /// `photo_ids` holds no photo, or more than `max`.
    case photoCount(max: Int)
    /// `photo_ids` names a photo twice.
    case duplicatePhotos
    /// A photo does not exist or is not the caller's.
    case noSuchPhoto
    /// The caption, trimmed, is longer than `max` characters.
    case captionTooLong(max: Int)
    /// A string parameter is not a valid stored string (the validator's message).
    case invalidText(String)
    /// A page size outside 1...`max`.
    case pageLimit(max: Int)
    /// `before` is not a cursor of `moments.likers`.
    case badLikersCursor
    /// The moment does not exist, or the caller may not see it.
    case notFound
    /// The caller's moments (`posts`) or likes (`likes`) bucket is empty.
    case rateLimited(bucket: String, retryAfterMilliseconds: Int64)
    /// A moment just stored could not be read back in its own transaction (an invariant violation).
    case notStored
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .photoCount(let max): return ServiceError(.badRequest, "photo_ids must hold 1 to \(max) photos")
        case .duplicatePhotos: return ServiceError(.badRequest, "photo_ids must be distinct")
        case .noSuchPhoto: return ServiceError(.notFound, "no such photo")
        case .captionTooLong(let max): return ServiceError(.badRequest, "caption is longer than \(max) characters")
        case .invalidText(let problem): return ServiceError(.badRequest, problem)
        case .pageLimit(let max): return ServiceError(.badRequest, "limit must be 1 to \(max)")
        case .badLikersCursor: return ServiceError(.badRequest, "before is not a cursor of moments.likers")
        case .notFound: return ServiceError(.notFound, "no such moment")
        case .rateLimited(let bucket, let retryAfter):
            return ServiceError(
                .rateLimited, "too many \(bucket); try again later", extra: ["retry_after_ms": retryAfter])
        case .notStored: return ServiceError(.internal, "moment not stored", underlying: self)
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: MomentError, rhs: MomentError) -> Bool { lhs.wire == rhs.wire }
}
