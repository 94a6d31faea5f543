//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Moments: up to 9 photos and a caption shared with friends (docs/protocol.md, "Moments"; issue 19).

extension Ops {
    /// The moment ops.
    public static let moments: [any ProtocolOperation.Type] = [
        MomentsCreate.self, MomentsFeed.self, MomentsGet.self, MomentsDelete.self, MomentsLike.self, MomentsUnlike.self,
        MomentsLikers.self,
    ]

    /// `moments.create {photo_ids, caption?, client_id?}` -> `{moment}`; `moment.created` to my devices and friends.
    public enum MomentsCreate: ProtocolOperation {
        public static let name = "moments.create"
        public static let stateChanging = true
        /// Resendable with a `client_id` (the same moment comes back).
        public static let idempotent = false
        public static let rateLimit = RateLimitClass.posts
        public struct Parameters: Codable, Sendable, Equatable {
            /// 1-9 (`--moment-max-photos`) distinct photos of mine, in order.
            public var photoIds: [Int64]
            /// At most 500 characters (`--moment-caption-max`), trimmed; default "".
            public var caption: String?
            /// A resend with the same `client_id` returns the moment made the first time.
            public var clientId: String?
            public init(photoIds: [Int64], caption: String? = nil, clientId: String? = nil) {
                self.photoIds = photoIds
                self.caption = caption
                self.clientId = clientId
            }
        }
        public typealias Result = MomentResult
    }

    /// `moments.feed {before?, limit?}` -> `{moments, next_before}`: mine and my friends', newest first.
    public enum MomentsFeed: ProtocolOperation {
        public static let name = "moments.feed"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// A moment id (`next_before` of the previous page).
            public var before: Int64?
            /// 1-50 (`--moments-page-max`), default 10.
            public var limit: Int?
            public init(before: Int64? = nil, limit: Int? = nil) {
                self.before = before
                self.limit = limit
            }
        }
        /// `{moments, next_before}`: the id to pass as `before` for older moments; null at the end.
        public typealias Result = Page<Moment>
    }

    /// `moments.get {moment_id}` -> `{moment}` (mine or a friend's).
    public enum MomentsGet: ProtocolOperation {
        public static let name = "moments.get"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = MomentIdParameters
        public typealias Result = MomentResult
    }

    /// `moments.delete {moment_id}` -> `{}` (mine); `moment.deleted` to my devices and friends.
    public enum MomentsDelete: ProtocolOperation {
        public static let name = "moments.delete"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = MomentIdParameters
        public typealias Result = Empty
    }

    /// `moments.like {moment_id}` -> `{moment_id, like_count, liked}`.
    public enum MomentsLike: ProtocolOperation {
        public static let name = "moments.like"
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.likes
        public typealias Parameters = MomentIdParameters
        public typealias Result = MomentLikeResult
    }

    /// `moments.unlike {moment_id}` -> `{moment_id, like_count, liked}`.
    public enum MomentsUnlike: ProtocolOperation {
        public static let name = "moments.unlike"
        public static let stateChanging = true
        public static let idempotent = true
        public static let rateLimit = RateLimitClass.likes
        public typealias Parameters = MomentIdParameters
        public typealias Result = MomentLikeResult
    }

    /// `moments.likers {moment_id, before?, limit?}` -> `{likers, next_before}`, newest like first.
    public enum MomentsLikers: ProtocolOperation {
        public static let name = "moments.likers"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var momentId: Int64
            /// The opaque cursor `next_before` of the previous page.
            public var before: String?
            /// 1-100, default 50.
            public var limit: Int?
            public init(momentId: Int64, before: String? = nil, limit: Int? = nil) {
                self.momentId = momentId
                self.before = before
                self.limit = limit
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var likers: [SocialUser]
            /// An opaque cursor for older likes; null at the end.
            public var nextBefore: String?
            public init(likers: [SocialUser], nextBefore: String?) {
                self.likers = likers
                self.nextBefore = nextBefore
            }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(likers, forKey: .likers)
                try c.encode(nextBefore, forKey: .nextBefore)
            }
        }
    }
}

/// `{moment_id}`.
public struct MomentIdParameters: Codable, Sendable, Equatable {
    public var momentId: Int64
    public init(momentId: Int64) { self.momentId = momentId }
}

/// `{moment}`.
public struct MomentResult: Codable, Sendable, Equatable {
    public var moment: Moment
    public init(moment: Moment) { self.moment = moment }
}

/// The answer of `moments.like`/`moments.unlike`: the count after the change, and whether I like it.
public struct MomentLikeResult: Codable, Sendable, Equatable {
    public var momentId: Int64
    public var likeCount: Int64
    public var liked: Bool
    public init(momentId: Int64, likeCount: Int64, liked: Bool) {
        self.momentId = momentId
        self.likeCount = likeCount
        self.liked = liked
    }
}

/// A moment as a viewer sees it: `{moment_id, owner, caption, photos, like_count, liked, recent_likers, created_at}`.
public struct Moment: Codable, Sendable, Equatable {
    public var momentId: Int64
    public var owner: SocialUser
    /// "" when none.
    public var caption: String
    /// 1-9, in the order given.
    public var photos: [Photo]
    public var likeCount: Int64
    /// Whether the viewer likes it.
    public var liked: Bool
    /// At most 3, newest like first.
    public var recentLikers: [SocialUser]
    /// RFC 3339, UTC.
    public var createdAt: String
    public init(
        momentId: Int64, owner: SocialUser, caption: String, photos: [Photo], likeCount: Int64, liked: Bool,
        recentLikers: [SocialUser],
        createdAt: String
    ) {
        self.momentId = momentId
        self.owner = owner
        self.caption = caption
        self.photos = photos
        self.likeCount = likeCount
        self.liked = liked
        self.recentLikers = recentLikers
        self.createdAt = createdAt
    }
}

/// Moment events (`docs/protocol.md`, "Moments"): to the owner's devices and friends (`moment.liked` also to the
/// liker's devices), on every node.
public enum MomentEvents {
    /// `moment.created {moment}` (`liked` and `recent_likers` as a new moment has them: false, []).
    public struct Created: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "moment.created"
        public var moment: Moment
        public init(moment: Moment) { self.moment = moment }
    }

    /// `moment.deleted {moment_id, owner_id}`.
    public struct Deleted: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "moment.deleted"
        public var momentId: Int64
        public var ownerId: Int64
        public init(momentId: Int64, ownerId: Int64) {
            self.momentId = momentId
            self.ownerId = ownerId
        }
    }

    /// `moment.liked {moment_id, like_count, liked, user}`: `user` liked (`liked` true) or unliked it.
    public struct Liked: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "moment.liked"
        public var momentId: Int64
        public var likeCount: Int64
        public var liked: Bool
        public var user: SocialUser
        public init(momentId: Int64, likeCount: Int64, liked: Bool, user: SocialUser) {
            self.momentId = momentId
            self.likeCount = likeCount
            self.liked = liked
            self.user = user
        }
    }
}
