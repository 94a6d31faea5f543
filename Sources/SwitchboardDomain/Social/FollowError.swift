//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a follows, blocks or mutes request was refused (docs/protocol.md "Profiles, handles and follows"); mapped
/// to the wire in `wire`. One type for the three: they share their rules (the user must be live and not oneself,
/// the list pages, who may see a protected account's lists).
public enum FollowError: FeatureError, Equatable {
    /// `follow` (or `unfollow`) of oneself.
    case followYourself
    /// `block` or `unblock` of oneself.
    case blockYourself
    /// `mute` or `unmute` of oneself.
    case muteYourself
    /// Following needs a handle of one's own.
    case handleRequired
    /// The user does not exist, is deleted, has no handle (for its lists), or either blocked the other.
    case noSuchUser
    /// The caller already follows (or asked to follow) `max` accounts.
    case tooManyFollowing(max: Int)
    /// `follow.approve` or `follow.deny` of a user who asked nothing.
    case noPendingRequest
    /// `follower.remove` of a user who does not follow the caller.
    case notAFollower
    /// A protected account's follower or following list, and the caller does not actively follow it.
    case protectedAccount
    /// A page size outside 1...`max`.
    case pageLimit(max: Int)
    /// The caller's follow bucket is empty.
    case rateLimited(retryAfterMilliseconds: Int64)
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .followYourself: return ServiceError(.badRequest, "you cannot follow yourself")
        case .blockYourself: return ServiceError(.badRequest, "you cannot block yourself")
        case .muteYourself: return ServiceError(.badRequest, "you cannot mute yourself")
        case .handleRequired: return ServiceError(.handleRequired, "choose a handle first")
        case .noSuchUser: return ServiceError(.notFound, "no such user")
        case .tooManyFollowing(let max):
            return ServiceError(.tooMany, "you follow as many accounts as allowed (\(max))")
        case .noPendingRequest: return ServiceError(.notFound, "no pending request from this user")
        case .notAFollower: return ServiceError(.notFound, "this user does not follow you")
        case .protectedAccount: return ServiceError(.forbidden, "this account is protected")
        case .pageLimit(let max): return ServiceError(.badRequest, "limit must be 1 to \(max)")
        case .rateLimited(let retryAfter):
            return ServiceError(
                .rateLimited, "too many follows and unfollows; try again later",
                extra: ["retry_after_ms": retryAfter])
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: FollowError, rhs: FollowError) -> Bool { lhs.wire == rhs.wire }
}
