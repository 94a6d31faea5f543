//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a posts request was refused (`post.*`, docs/protocol.md "Posts and timelines"); mapped to the wire in `wire`.
public enum PostError: FeatureError, Equatable {
    /// `photo_ids` holds more than `max` photos.
    case tooManyPhotos(max: Int)
    /// `photo_ids` names a photo twice.
    case duplicatePhotos
    /// A photo does not exist or is not the author's.
    case noSuchPhoto
    /// The text is empty, too long or not valid text (`PostText`'s message).
    case invalidText(String)
    /// `client_id` is not a valid stored string (the validator's message).
    case invalidClientId(String)
    /// The post does not exist, was deleted, or the caller may not see it.
    case noSuchPost
    /// The voice clip does not exist or is not the author's.
    case noSuchVoiceClip
    /// Posting, liking and reposting need a handle of one's own.
    case handleRequired
    /// A protected account's post cannot be reposted (but by its author).
    case protectedRepost
    /// Only the author (or an administrator) deletes a post.
    case notAuthor
    /// A page size outside 1...`max`.
    case pageLimit(max: Int)
    /// The caller's `posts`, `likes` or `reposts` bucket is empty.
    case rateLimited(bucket: String, retryAfterMilliseconds: Int64)
    /// A statement that cannot fail did (the post clock is missing, an insert returned no id): an invariant
    /// violation, answered `internal` with this message.
    case invariant(String)
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .tooManyPhotos(let max): return ServiceError(.badRequest, "a post holds at most \(max) photos")
        case .duplicatePhotos: return ServiceError(.badRequest, "photo_ids must be distinct")
        case .noSuchPhoto: return ServiceError(.notFound, "no such photo")
        case .invalidText(let problem): return ServiceError(.invalidText, problem)
        case .invalidClientId(let problem): return ServiceError(.badRequest, problem)
        case .noSuchPost: return ServiceError(.notFound, "no such post")
        case .noSuchVoiceClip: return ServiceError(.notFound, "no such voice clip")
        case .handleRequired: return ServiceError(.handleRequired, "choose a handle first")
        case .protectedRepost: return ServiceError(.forbidden, "posts of protected accounts cannot be reposted")
        case .notAuthor: return ServiceError(.forbidden, "only the author deletes a post")
        case .pageLimit(let max): return ServiceError(.badRequest, "limit must be 1 to \(max)")
        case .rateLimited(let bucket, let retryAfter):
            return ServiceError(
                .rateLimited, "too many \(bucket); try again later", extra: ["retry_after_ms": retryAfter])
        case .invariant(let message): return ServiceError(.internal, message, underlying: self)
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: PostError, rhs: PostError) -> Bool { lhs.wire == rhs.wire }
}
