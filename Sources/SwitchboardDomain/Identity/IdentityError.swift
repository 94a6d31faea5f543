//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why an accounts or sessions request was refused (`register`, `login`, `authenticate`, `logout`, `sessions.*`,
/// `profile.*`, and the password check of `account.delete`; docs/protocol.md "Accounts"); mapped to the wire in
/// `wire`, with the messages clients have always received.
public enum IdentityError: FeatureError, Equatable {
    /// The phone number is not one `PhoneNumber.normalize` accepts.
    case invalidPhone
    /// A name (`display_name`, `device`) is over four times its rule's byte limit before trimming.
    case nameTooLong(field: String, maxBytes: Int)
    /// A string parameter is not a valid stored string (the validator's message).
    case invalidText(String)
    /// The password of `register` is longer than `PasswordPolicy.maxLength` bytes.
    case passwordTooLong
    /// The password of `register` contains U+0000.
    case passwordContainsNUL
    /// The password of `register` is too weak (`reason` on the wire).
    case weakPassword(PasswordWeakness)
    /// The password hashers' queue is full (or hashing failed): retry shortly.
    case hasherBusy(underlying: any Error)
    /// `register`: the phone number has an account.
    case phoneTaken
    /// `register`: the handle is someone else's.
    case handleTaken
    /// A handle on the reserved list.
    case handleReserved
    /// A handle that is not 3 to 30 letters, digits or underscores.
    case invalidHandle
    /// `register`: the caller's address used up its registrations (`--register-burst-per-address`).
    case registrationsLimited(retryAfterMilliseconds: Int64)
    /// `login`: unknown phone number or wrong password (one answer for both).
    case wrongCredentials
    /// `login`: the phone number or the address used up its attempts (`--login-burst-per-*`).
    case loginsLimited(retryAfterMilliseconds: Int64)
    /// The account is suspended (moderation): no login, no authentication.
    case suspended
    /// `authenticate` (and bearer tokens): not a token, or revoked, or unknown.
    case invalidToken
    /// A session just inserted returned no id (an invariant violation).
    case sessionNotStored
    /// `sessions.revoke`: not one of the caller's live sessions.
    case noSuchSession
    /// `profile.*`: no such user, or one the viewer may not see (one answer for both).
    case noSuchUser
    /// `profile.update` without any field to change.
    case nothingToUpdate
    /// `time_zone` is not an IANA zone Foundation knows.
    case unknownTimeZone
    /// `locale` is not a BCP 47 tag.
    case invalidLocale
    /// `bio` or `dm_policy` refused by the social rules (`SocialProfileChange.validate`): their answer.
    case socialProfile(ServiceError)
    /// `account.delete`: the password is not the account's.
    case wrongPassword
    /// `account.delete`: the account's phone number or the address used up its password attempts (the login buckets).
    case passwordAttemptsLimited(retryAfterMilliseconds: Int64)
    /// `register` (verification required) or `password.reset`: no valid code for the number (wrong, expired, used
    /// up, or never sent; one answer for all, and for an unknown number).
    case invalidCode
    /// `verification.start`: the number or the address used up its codes (`--verification-*-per-*`).
    case verificationsLimited(retryAfterMilliseconds: Int64)
    /// `verification.start` with a purpose other than `register` or `reset`.
    case invalidPurpose
    /// `verification.start`, `password.reset`: no SMS gateway (`--sms-gateway off`).
    case verificationUnavailable
    /// The SMS gateway failed (an error status, a timeout): nothing was sent.
    case smsGatewayFailed(underlying: any Error)
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .invalidPhone: return ServiceError(.invalidPhone, "not a valid phone number")
        case .nameTooLong(let field, let maxBytes):
            return ServiceError(.badRequest, "\(field) is longer than \(maxBytes) bytes (UTF-8)")
        case .invalidText(let problem): return ServiceError(.badRequest, problem)
        case .passwordTooLong: return ServiceError(.badRequest, "password too long")
        case .passwordContainsNUL: return ServiceError(.badRequest, "password contains U+0000")
        case .weakPassword(let weakness):
            return ServiceError(
                .weakPassword, "the password is too weak: \(weakness.rawValue)", reason: weakness.rawValue)
        case .hasherBusy(let underlying):
            return ServiceError(.unavailable, "busy; retry shortly", underlying: underlying)
        case .phoneTaken: return ServiceError(.phoneTaken, "this phone number is already registered")
        case .handleTaken: return ServiceError(.handleTaken, "this handle is taken")
        case .handleReserved: return ServiceError(.badRequest, "this handle is reserved")
        case .invalidHandle: return ServiceError(.badRequest, "a handle is 3 to 30 letters, digits or underscores")
        case .registrationsLimited(let retryAfter):
            return ServiceError(
                .rateLimited, "too many registrations from your address; retry later",
                extra: ["retry_after_ms": retryAfter])
        case .wrongCredentials: return ServiceError(.invalidCredentials, "wrong phone number or password")
        case .loginsLimited(let retryAfter):
            return ServiceError(
                .rateLimited, "too many login attempts; retry later", extra: ["retry_after_ms": retryAfter])
        case .suspended: return ServiceError(.accountSuspended, "this account is suspended")
        case .invalidToken: return ServiceError(.invalidToken, "invalid or revoked session token")
        case .sessionNotStored: return ServiceError(.internal, "internal error", underlying: self)
        case .noSuchSession: return ServiceError(.notFound, "no such active session of yours")
        case .noSuchUser: return ServiceError(.notFound, "no such user")
        case .nothingToUpdate:
            return ServiceError(.badRequest, "give display_name, time_zone, locale, bio, protected or dm_policy")
        case .unknownTimeZone: return ServiceError(.badRequest, "unknown time zone")
        case .invalidLocale: return ServiceError(.badRequest, "invalid locale")
        case .socialProfile(let refusal): return refusal
        case .wrongPassword: return ServiceError(.invalidCredentials, "wrong password")
        case .passwordAttemptsLimited(let retryAfter):
            return ServiceError(.rateLimited, "too many attempts; retry later", extra: ["retry_after_ms": retryAfter])
        case .invalidCode: return ServiceError(.invalidCode, "invalid or expired code")
        case .verificationsLimited(let retryAfter):
            return ServiceError(
                .rateLimited, "too many codes requested; retry later", extra: ["retry_after_ms": retryAfter])
        case .invalidPurpose: return ServiceError(.badRequest, "purpose is register or reset")
        case .verificationUnavailable:
            return ServiceError(.unavailable, "this server sends no verification codes")
        case .smsGatewayFailed(let underlying):
            return ServiceError(.unavailable, "the code could not be sent; retry later", underlying: underlying)
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (a cause is not compared).
    public static func == (lhs: IdentityError, rhs: IdentityError) -> Bool { lhs.wire == rhs.wire }
}
