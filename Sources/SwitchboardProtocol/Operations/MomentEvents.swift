//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
