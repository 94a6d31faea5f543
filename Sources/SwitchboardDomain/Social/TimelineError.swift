//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a timeline request was refused (`timeline.*`, docs/protocol.md "Posts and timelines"); mapped to the wire
/// in `wire`.
public enum TimelineError: FeatureError, Equatable {
    /// A page size outside 1...`max`.
    case pageLimit(max: Int)
    /// Both `before` and `after` were given.
    case bothCursors
    /// `before` is below 1.
    case badBefore
    /// `after` is negative.
    case badAfter
    /// `timeline.likes`' `before` is not a like id.
    case badLikeCursor
    /// `timeline.user` needs exactly one of `user_id` and `handle`.
    case userOrHandle
    /// `tag` is not a hashtag.
    case badHashtag
    /// The user does not exist, has no handle, is deleted, or either blocked the other.
    case noSuchUser
    /// The post does not exist, was deleted, or the caller may not see it.
    case noSuchPost
    /// A protected account's posts, and the caller does not actively follow it.
    case protectedPosts
    /// Reading the page's profile failed: the accounts service's own answer (`not_found` for a profile the caller
    /// may not see, or its database failure), passed through.
    case profile(any WireMappable)
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .pageLimit(let max): return ServiceError(.badRequest, "limit must be 1 to \(max)")
        case .bothCursors: return ServiceError(.badRequest, "give before or after, not both")
        case .badBefore: return ServiceError(.badRequest, "before must be 1 or more")
        case .badAfter: return ServiceError(.badRequest, "after must be 0 or more")
        case .badLikeCursor: return ServiceError(.badRequest, "before must be a like id (1 or more)")
        case .userOrHandle: return ServiceError(.badRequest, "give user_id or handle")
        case .badHashtag: return ServiceError(.badRequest, "tag is not a hashtag")
        case .noSuchUser: return ServiceError(.notFound, "no such user")
        case .noSuchPost: return ServiceError(.notFound, "no such post")
        case .protectedPosts: return ServiceError(.forbidden, "this account's posts are for its followers")
        case .profile(let error): return error.wire
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: TimelineError, rhs: TimelineError) -> Bool { lhs.wire == rhs.wire }
}
