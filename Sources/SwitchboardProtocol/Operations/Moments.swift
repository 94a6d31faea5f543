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
        public static let stringParameters: [String: StringParameter] = ["caption": .text]
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
