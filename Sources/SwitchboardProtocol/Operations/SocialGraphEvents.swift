//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The social graph's events, to the acting user's own devices.
public enum SocialGraphEvents {
    /// `follow.changed {user_id, state ("active"|"pending"|"none")}`: the follow of `user_id` by the recipient.
    public struct FollowChanged: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "follow.changed"
        public var userId: Int64
        public var state: String
        public init(userId: Int64, state: String) {
            self.userId = userId
            self.state = state
        }
    }

    /// `relationship.changed {user_id, blocking, muting}`.
    public struct RelationshipChanged: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "relationship.changed"
        public var userId: Int64
        public var blocking: Bool
        public var muting: Bool
        public init(userId: Int64, blocking: Bool, muting: Bool) {
            self.userId = userId
            self.blocking = blocking
            self.muting = muting
        }
    }
}
