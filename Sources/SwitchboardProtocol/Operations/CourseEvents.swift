//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The events of announcements and courses.
public enum CourseEvents {
    /// `community.post.updated {post}`: to every member's devices (the post's `completed` is false).
    public struct PostUpdated: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "community.post.updated"
        /// The post as it is now.
        public var post: CommunityPost
        /// The fields of the event.
        public init(post: CommunityPost) { self.post = post }
    }

    /// `community.post.deleted {community_id, post_id}`: to every member's devices.
    public struct PostDeleted: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "community.post.deleted"
        public var communityId: Int64
        public var postId: Int64
        public init(communityId: Int64, postId: Int64) {
            self.communityId = communityId
            self.postId = postId
        }
    }

    /// `course.progress {community_id, post_id, completed, completed_count, total}`: to the member's own devices.
    public struct Progress: ProtocolEvent, Equatable {
        /// The event's name on the wire.
        public static let name = "course.progress"
        public var communityId: Int64
        public var postId: Int64
        /// Whether the lesson is now completed.
        public var completed: Bool
        /// How many of the course's lessons the member completed.
        public var completedCount: Int
        public var total: Int
        public init(communityId: Int64, postId: Int64, completed: Bool, completedCount: Int, total: Int) {
            self.communityId = communityId
            self.postId = postId
            self.completed = completed
            self.completedCount = completedCount
            self.total = total
        }
    }
}
