//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a friends or contact discovery request was refused (`friends.*`, `contacts.match`; docs/protocol.md
/// "Friends"); mapped to the wire in `wire`.
public enum FriendError: FeatureError, Equatable {
    /// `friends.request`: the phone number is not one `PhoneNumber.normalize` accepts.
    case invalidPhone
    /// `friends.request` with neither `phone` nor `user_id`.
    case missingTarget
    /// `friends.request`: nobody has that phone number or id.
    case noSuchUser
    /// `friends.request` to oneself.
    case selfRequest
    /// `friends.request`: a request to this user is already pending.
    case alreadyRequested
    /// A request just inserted could not be read back in its own transaction (an invariant violation).
    case requestNotStored
    /// `friends.accept` or `friends.decline`: no pending request with that id addressed to the caller.
    case noSuchRequestToYou
    /// `friends.cancel`: no pending request with that id sent by the caller.
    case noSuchRequestFromYou
    /// `friends.remove`: the users are not friends.
    case notFriends
    /// `contacts.match` with more than `max` phone numbers (`too_many`, costing no tokens).
    case tooManyContacts(max: Int)
    /// `contacts.match`: the caller's account used up its look-ups (`--contacts-burst-per-user`).
    case contactLookupsLimited(retryAfterMilliseconds: Int64)
    /// `contacts.match`: the caller's address used up its look-ups (`--contacts-burst-per-address`).
    case addressContactLookupsLimited(retryAfterMilliseconds: Int64)
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .invalidPhone: return ServiceError(.invalidPhone, "not a valid phone number")
        case .missingTarget: return ServiceError(.badRequest, "give phone or user_id")
        case .noSuchUser: return ServiceError(.notFound, "no user with that phone number or id")
        case .selfRequest: return ServiceError(.selfRequest, "you cannot befriend yourself")
        case .alreadyRequested: return ServiceError(.alreadyRequested, "you already sent this user a request")
        case .requestNotStored: return ServiceError(.internal, "internal error", underlying: self)
        case .noSuchRequestToYou: return ServiceError(.notFound, "no such pending request to you")
        case .noSuchRequestFromYou: return ServiceError(.notFound, "no such pending request from you")
        case .notFriends: return ServiceError(.notFriends, "you are not friends with this user")
        case .tooManyContacts(let max): return ServiceError(.tooMany, "at most \(max) phone numbers per call")
        case .contactLookupsLimited(let retryAfter):
            return ServiceError(
                .rateLimited, "too many contact look-ups; retry later", extra: ["retry_after_ms": retryAfter])
        case .addressContactLookupsLimited(let retryAfter):
            return ServiceError(
                .rateLimited, "too many contact look-ups from your address; retry later",
                extra: ["retry_after_ms": retryAfter])
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (a cause is not compared).
    public static func == (lhs: FriendError, rhs: FriendError) -> Bool { lhs.wire == rhs.wire }
}
