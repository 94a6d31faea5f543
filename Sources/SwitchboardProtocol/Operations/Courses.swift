//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A community's announcements and course lessons, and each member's progress through the course (docs/protocol.md,
// "Announcements and courses"). Core members and administrators post; members read and mark lessons completed.

extension Ops {
    /// The announcement and course ops.
    public static let courses: [any ProtocolOperation.Type] = [
        CommunityPostsCreate.self, CommunityPostsUpdate.self, CommunityPostsDelete.self, CommunityPostsList.self,
        CoursesGet.self,
        CoursesComplete.self, CoursesProgress.self,
    ]

    /// `community.posts.create {community_id, kind, title, body?, voice_clip_id?, video_url?, position?}` -> `{post}`:
    /// a core member or an administrator posts an announcement or a lesson; every member is notified
    /// (`community.notification` of kind `announcement` or `lesson`). A lesson goes at `position` (default: last),
    /// the later lessons moving one place down.
    public enum CommunityPostsCreate: ProtocolOperation {
        public static let name = "community.posts.create"
        public static let stringParameters: [String: StringParameter] = ["body": .text]
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            /// `announcement` or `lesson`.
            public var kind: String
            /// 1 to 120 characters.
            public var title: String
            /// At most 10,000 characters (line breaks allowed).
            public var body: String?
            /// A clip the author uploaded with `POST /voice`.
            public var voiceClipId: Int64?
            /// An http or https URL of at most 512 characters.
            public var videoUrl: String?
            /// Lessons only: 1 or more; past the last lesson means last.
            public var position: Int?
            public init(
                communityId: Int64, kind: String, title: String, body: String? = nil, voiceClipId: Int64? = nil,
                videoUrl: String? = nil,
                position: Int? = nil
            ) {
                self.communityId = communityId
                self.kind = kind
                self.title = title
                self.body = body
                self.voiceClipId = voiceClipId
                self.videoUrl = videoUrl
                self.position = position
            }
        }
        public typealias Result = CommunityPostResult
    }

    /// `community.posts.update {post_id, title?, body?, voice_clip_id?, video_url?}` -> `{post}`: the author or an
    /// administrator edits a post; `voice_clip_id` or `video_url` null removes it. Members get
    /// `community.post.updated` (no new notification).
    public enum CommunityPostsUpdate: ProtocolOperation {
        public static let name = "community.posts.update"
        public static let stringParameters: [String: StringParameter] = ["body": .text]
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var postId: Int64
            public var title: String?
            public var body: String?
            /// Absent: unchanged; null: removed; a value: a clip the editor uploaded.
            public var voiceClipId: Int64??
            /// Absent: unchanged; null: removed; a value: an http or https URL.
            public var videoUrl: String??
            public init(
                postId: Int64, title: String? = nil, body: String? = nil, voiceClipId: Int64?? = nil,
                videoUrl: String?? = nil
            ) {
                self.postId = postId
                self.title = title
                self.body = body
                self.voiceClipId = voiceClipId
                self.videoUrl = videoUrl
            }

            enum CodingKeys: String, CodingKey { case postId, title, body, voiceClipId, videoUrl }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                postId = try c.decode(Int64.self, forKey: .postId)
                title = try c.decodeIfPresent(String.self, forKey: .title)
                body = try c.decodeIfPresent(String.self, forKey: .body)
                voiceClipId =
                    c.contains(.voiceClipId) ? .some(try c.decodeIfPresent(Int64.self, forKey: .voiceClipId)) : nil
                videoUrl = c.contains(.videoUrl) ? .some(try c.decodeIfPresent(String.self, forKey: .videoUrl)) : nil
            }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(postId, forKey: .postId)
                try c.encodeIfPresent(title, forKey: .title)
                try c.encodeIfPresent(body, forKey: .body)
                if let voiceClipId { try c.encode(voiceClipId, forKey: .voiceClipId) }
                if let videoUrl { try c.encode(videoUrl, forKey: .videoUrl) }
            }
        }
        public typealias Result = CommunityPostResult
    }

    /// `community.posts.delete {post_id}` -> `{}`: the author or an administrator deletes a post; members get
    /// `community.post.deleted`. The other lessons keep their positions (a gap is left).
    public enum CommunityPostsDelete: ProtocolOperation {
        public static let name = "community.posts.delete"
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var postId: Int64
            public init(postId: Int64) { self.postId = postId }
        }
        public struct Result: Codable, Sendable, Equatable {
            public init() {}
        }
    }

    /// `community.posts.list {community_id, kind?, before?, limit?}` -> `{posts, next_before}`: a community's
    /// announcements (or lessons) newest first, for members and administrators.
    public enum CommunityPostsList: ProtocolOperation {
        public static let name = "community.posts.list"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            /// `announcement` (default) or `lesson`.
            public var kind: String?
            /// A post id: the page starts below it.
            public var before: Int64?
            /// 1 to 100, default 20.
            public var limit: Int?
            public init(communityId: Int64, kind: String? = nil, before: Int64? = nil, limit: Int? = nil) {
                self.communityId = communityId
                self.kind = kind
                self.before = before
                self.limit = limit
            }
        }
        /// `{posts, next_before}`: the `before` of the next page, null on the last page.
        public typealias Result = Page<CommunityPost>
    }

    /// `courses.get {community_id}` -> `{lessons, completed, total}`: the course's lessons by position, each with
    /// whether I completed it, and my count.
    public enum CoursesGet: ProtocolOperation {
        public static let name = "courses.get"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            public init(communityId: Int64) { self.communityId = communityId }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var lessons: [CommunityPost]
            /// How many of the lessons I completed.
            public var completed: Int
            /// How many lessons the course has.
            public var total: Int
            public init(lessons: [CommunityPost], completed: Int, total: Int) {
                self.lessons = lessons
                self.completed = completed
                self.total = total
            }
        }
    }

    /// `courses.complete {post_id, completed?}` -> `{completed, total}`: a member marks a lesson completed (or, with
    /// `completed` false, not completed); the member's devices get `course.progress`.
    public enum CoursesComplete: ProtocolOperation {
        public static let name = "courses.complete"
        public static let stateChanging = true
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var postId: Int64
            /// Default true.
            public var completed: Bool?
            public init(postId: Int64, completed: Bool? = nil) {
                self.postId = postId
                self.completed = completed
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            /// How many of the course's lessons I completed.
            public var completed: Int
            public var total: Int
            public init(completed: Int, total: Int) {
                self.completed = completed
                self.total = total
            }
        }
    }

    /// `courses.progress {community_id, cursor?, limit?}` -> `{members, total, next_cursor}`: every member's count of
    /// completed lessons, for core members and administrators, by display name.
    public enum CoursesProgress: ProtocolOperation {
        public static let name = "courses.progress"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            /// Opaque: the `next_cursor` of the previous page.
            public var cursor: String?
            /// 1 to 200, default 50.
            public var limit: Int?
            public init(communityId: Int64, cursor: String? = nil, limit: Int? = nil) {
                self.communityId = communityId
                self.cursor = cursor
                self.limit = limit
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var members: [MemberProgress]
            /// How many lessons the course has.
            public var total: Int
            public var nextCursor: String?
            public init(members: [MemberProgress], total: Int, nextCursor: String?) {
                self.members = members
                self.total = total
                self.nextCursor = nextCursor
            }
            enum CodingKeys: String, CodingKey { case members, total, nextCursor }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(members, forKey: .members)
                try c.encode(total, forKey: .total)
                try c.encode(nextCursor, forKey: .nextCursor)
            }
        }
    }
}
