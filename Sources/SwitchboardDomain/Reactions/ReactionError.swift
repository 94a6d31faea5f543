//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why `reactions.set` was refused (docs/protocol.md "Reactions"); mapped to the wire in `wire`.
public enum ReactionError: FeatureError, Equatable {
    /// The emoji is not a valid stored string under its rule (the validator's message).
    case invalidText(String)
    /// The caller's reaction bucket is empty (`--reaction-rate`).
    case rateLimited(retryAfterMilliseconds: Int64)
    /// No such message, or one the caller cannot see (a stranger's, before joining, after leaving).
    case noSuchMessage
    /// The message was deleted.
    case messageDeleted
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .invalidText(let problem): return ServiceError(.badRequest, problem)
        case .rateLimited(let retryAfter):
            return ServiceError(.rateLimited, "too many reactions", extra: ["retry_after_ms": retryAfter])
        case .noSuchMessage: return ServiceError(.notFound, "no such message")
        case .messageDeleted: return ServiceError(.invalidState, "the message was deleted")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (a cause is not compared).
    public static func == (lhs: ReactionError, rhs: ReactionError) -> Bool { lhs.wire == rhs.wire }
}
