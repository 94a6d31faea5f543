//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a live page request was refused (`live.subscribe`, `live.unsubscribe`, docs/protocol.md "Live pages");
/// mapped to the wire in `wire`.
public enum LiveError: FeatureError, Equatable {
    /// `streams` is empty.
    case noStreams
    /// A stream name that is not `home`, `notifications`, `user:<id>` or `thread:<id>` (at most 64 characters
    /// of it are quoted back).
    case unknownStream(String)
    /// The connection would subscribe to more than `max` streams.
    case tooManyStreams(max: Int)
    /// `since` is negative.
    case badSince
    /// A `user:` stream of a user the caller may not know of.
    case noSuchUser
    /// A `thread:` stream of a post the caller may not see.
    case noSuchPost
    /// A `user:` stream of a protected account the caller does not actively follow.
    case protectedPosts
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .noStreams: return ServiceError(.badRequest, "streams must not be empty")
        case .unknownStream(let name): return ServiceError(.badRequest, "unknown stream \(name.prefix(64))")
        case .tooManyStreams(let max): return ServiceError(.tooMany, "at most \(max) live streams per connection")
        case .badSince: return ServiceError(.badRequest, "since must not be negative")
        case .noSuchUser: return ServiceError(.notFound, "no such user")
        case .noSuchPost: return ServiceError(.notFound, "no such post")
        case .protectedPosts: return ServiceError(.forbidden, "this account's posts are for its followers")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: LiveError, rhs: LiveError) -> Bool { lhs.wire == rhs.wire }
}
