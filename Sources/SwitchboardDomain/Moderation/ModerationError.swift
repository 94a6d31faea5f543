//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a moderation request was refused (`report.create`, `admin.*`, `switchboard admin`; docs/moderation.md);
/// mapped to the wire in `wire`.
public enum ModerationError: FeatureError, Equatable {
    /// `reason` is not one of `ModerationReason.all`.
    case unknownReason
    /// `target_kind` `post`: reserved until posts can be reported.
    case postsNotReportable
    /// `target_kind` is neither `message` nor `user`.
    case unknownTargetKind
    /// A text parameter (`text`, `reason`, `note`) is not a valid stored string (the validator's message).
    case invalidText(String)
    /// The reporter's report bucket is empty.
    case rateLimited(retryAfterMilliseconds: Int64)
    /// The message does not exist, or the caller may not see it (one answer for both).
    case noSuchMessage
    /// The reported message was deleted by its sender.
    case messageDeleted
    /// The user does not exist, or the reporter shares nothing with it, or it is the reporter (one answer).
    case noSuchUser
    /// The caller is not an administrator (or is a suspended one).
    case administratorsOnly
    /// `admin.reports`' `status` is neither `open` nor `closed`.
    case unknownReportStatus
    /// `admin.resolve`'s `status` is neither `resolved` nor `dismissed`.
    case unknownResolution
    /// A page size outside 1...`max`.
    case pageLimit(max: Int)
    /// A `before` cursor below 1.
    case badBefore
    /// The report does not exist.
    case noSuchReport
    /// An administrator tried to suspend its own account.
    case selfSuspension
    /// The conversation's writer refused the removal (its own answer, e.g. an already removed message).
    case writerRefused(ServiceError)
    /// `switchboard admin grant|revoke`: the argument is not an E.164 phone number.
    case invalidPhone
    /// `switchboard admin grant|revoke`: no account has the phone number.
    case noSuchPhone
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .unknownReason:
            return ServiceError(.badRequest, "reason must be one of \(ModerationReason.all.joined(separator: ", "))")
        case .postsNotReportable: return ServiceError(.badRequest, "posts cannot be reported yet")
        case .unknownTargetKind: return ServiceError(.badRequest, "target_kind must be message or user")
        case .invalidText(let problem): return ServiceError(.badRequest, problem)
        case .rateLimited(let retryAfter):
            return ServiceError(.rateLimited, "too many reports", extra: ["retry_after_ms": retryAfter])
        case .noSuchMessage: return ServiceError(.notFound, "no such message")
        case .messageDeleted: return ServiceError(.invalidState, "the message was deleted")
        case .noSuchUser: return ServiceError(.notFound, "no such user")
        case .administratorsOnly: return ServiceError(.forbidden, "administrators only")
        case .unknownReportStatus: return ServiceError(.badRequest, "status must be open or closed")
        case .unknownResolution: return ServiceError(.badRequest, "status must be resolved or dismissed")
        case .pageLimit(let max): return ServiceError(.badRequest, "limit must be 1 to \(max)")
        case .badBefore: return ServiceError(.badRequest, "before must be an id (1 or more)")
        case .noSuchReport: return ServiceError(.notFound, "no such report")
        case .selfSuspension: return ServiceError(.badRequest, "an administrator cannot suspend itself")
        case .writerRefused(let answer): return answer
        case .invalidPhone: return ServiceError(.invalidPhone, "not a valid phone number (use +<country><number>)")
        case .noSuchPhone: return ServiceError(.notFound, "no account has this phone number")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: ModerationError, rhs: ModerationError) -> Bool { lhs.wire == rhs.wire }
}
