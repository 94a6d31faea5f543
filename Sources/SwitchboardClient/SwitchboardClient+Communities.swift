//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

// Communities, events, the calendar, announcements and courses (docs/protocol.md, "Communities"), as a client
// decodes them. Property names are camelCase; the wire's snake_case keys are converted when decoding. Fields a
// server may leave out are optional, so that a client keeps working against servers that add or omit them.

/// A community: `{community_id, name, description, category, picture, member_count, joined, role, unread,
/// archived, created_at}`.
public struct CommunityInfo: Codable, Sendable, Equatable {
    public var communityId: Int64
    public var name: String
    public var description: String?
    public var category: String?
    /// A picture URL, or nil.
    public var picture: String?
    public var memberCount: Int64
    /// Whether the asking user is a member.
    public var joined: Bool
    /// `member`, `core`, or nil when not a member.
    public var role: String?
    /// Notifications the asking user has not read (0 when not a member).
    public var unread: Int64?
    public var archived: Bool?
    public var createdAt: String?
}

/// A page of `communities.list`: joined communities first, then the others, each by name.
public struct CommunityPage: Codable, Sendable, Equatable {
    public var communities: [CommunityInfo]
    /// The cursor of the next page, or nil on the last.
    public var nextCursor: String?
    /// Unread notifications over every joined community.
    public var unreadTotal: Int64?
}

/// A member of a community, as `communities.members` lists them.
public struct CommunityMemberInfo: Codable, Sendable, Equatable {
    public var user: UserSummary
    /// `member` or `core`.
    public var role: String
    public var joinedAt: String?
}

/// A page of `communities.members`.
public struct CommunityMembersPage: Codable, Sendable, Equatable {
    public var members: [CommunityMemberInfo]
    public var nextCursor: String?
}

/// A stored community notification: `{community_id, seq, kind, event_id, post_id, actor, title, created_at}`.
public struct CommunityNotificationInfo: Codable, Sendable, Equatable {
    public var communityId: Int64
    public var seq: Int64
    /// `event.published`, `event.changed`, `event.cancelled`, `announcement` or `lesson`.
    public var kind: String
    public var eventId: Int64?
    public var postId: Int64?
    public var actor: UserSummary?
    public var title: String
    public var createdAt: String?
}

/// A page of `communities.notifications`, newest first.
public struct CommunityNotificationsPage: Codable, Sendable, Equatable {
    public var notifications: [CommunityNotificationInfo]
    /// The user's read marker in that community.
    public var readSeq: Int64
    public var nextBeforeSeq: Int64?
}

/// The reply to `communities.read` (and the fields of the `community.read` event).
public struct CommunityReadResult: Codable, Sendable, Equatable {
    public var readSeq: Int64
    public var unread: Int64
    public var unreadTotal: Int64
}

/// The reply to `communities.unread`.
public struct CommunityUnreadSummary: Codable, Sendable, Equatable {
    public struct Entry: Codable, Sendable, Equatable {
        public var communityId: Int64
        public var unread: Int64
    }

    public var unreadTotal: Int64
    /// The joined communities with unread notifications.
    public var communities: [Entry]
}

/// An event of a community: `{event_id, community_id, title, description, place, starts_at, ends_at, time_zone,
/// capacity, participant_count, joined, status, version, updated_at}`.
public struct CommunityEventInfo: Codable, Sendable, Equatable {
    public var eventId: Int64
    public var communityId: Int64
    public var title: String
    public var description: String?
    public var place: String?
    /// Instants in the protocol's timestamp format.
    public var startsAt: String
    public var endsAt: String
    /// The organiser's IANA time zone.
    public var timeZone: String?
    /// nil: no limit.
    public var capacity: Int64?
    public var participantCount: Int64
    /// Whether the asking user takes part.
    public var joined: Bool
    /// `upcoming`, `ongoing`, `ended` or `cancelled`.
    public var status: String
    public var version: Int64?
    public var updatedAt: String?
}

/// A page of `events.list`.
public struct CommunityEventsPage: Codable, Sendable, Equatable {
    public var events: [CommunityEventInfo]
    public var nextCursor: String?
}

/// The reply to `calendar.get`: the range's dates in a time zone and the joined events in it.
public struct CalendarView: Codable, Sendable, Equatable {
    /// One day of the range that has events.
    public struct Day: Codable, Sendable, Equatable {
        /// `YYYY-MM-DD`.
        public var date: String
        public var eventIds: [Int64]
    }

    /// `day`, `week`, `month` or `year`.
    public var range: String
    public var timeZone: String
    /// The week's first day: 1 = Sunday ... 7 = Saturday.
    public var firstWeekday: Int
    /// Today's date in that zone.
    public var today: String
    /// The range's first and last dates (inclusive).
    public var from: String
    public var to: String
    public var startsAt: String?
    public var endsAt: String?
    /// A date inside the previous and the next range.
    public var previous: String
    public var next: String
    public var days: [Day]
    public var events: [CommunityEventInfo]
}

/// An announcement or a course lesson: `{post_id, community_id, kind, position, title, body, author, voice_clip_id,
/// video_url, completed, created_at, updated_at}`.
public struct CommunityPostInfo: Codable, Sendable, Equatable {
    public var postId: Int64
    public var communityId: Int64
    /// `announcement` or `lesson`.
    public var kind: String
    /// A lesson's place in the course.
    public var position: Int64?
    public var title: String
    public var body: String?
    public var author: UserSummary?
    public var voiceClipId: Int64?
    public var videoUrl: String?
    /// Lessons: whether the asking user completed it.
    public var completed: Bool?
    public var createdAt: String?
    public var updatedAt: String?
}

/// A page of `community.posts.list`, newest first.
public struct CommunityPostsPage: Codable, Sendable, Equatable {
    public var posts: [CommunityPostInfo]
    public var nextBefore: Int64?
}

/// The reply to `courses.get`: the lessons by position and the asking user's progress.
public struct CourseView: Codable, Sendable, Equatable {
    public var lessons: [CommunityPostInfo]
    public var completed: Int64
    public var total: Int64
}

/// The reply to `courses.complete`.
public struct CourseProgress: Codable, Sendable, Equatable {
    public var completed: Int64
    public var total: Int64
}

/// The reply to `communities.quit`.
public struct CommunityQuitResult: Codable, Sendable, Equatable {
    /// The upcoming or ongoing events of the community the user no longer takes part in.
    public var droppedEventIds: [Int64]
}

private struct CommunityEnvelope: Decodable { var community: CommunityInfo }
private struct EventEnvelope: Decodable { var event: CommunityEventInfo }
private struct PostEnvelope: Decodable { var post: CommunityPostInfo }

/// Communities (docs/protocol.md, "Communities").
extension SwitchboardClient {
    /// `communities.list {limit?, cursor?}`: joined communities first, then the others, each by name.
    public func communities(limit: Int? = nil, cursor: String? = nil) async throws(SwitchboardClientError) -> CommunityPage {
        var p: [String: JSONValue] = [:]
        if let limit { p["limit"] = .int(Int64(limit)) }
        if let cursor { p["cursor"] = .string(cursor) }
        return try await request(op: "communities.list", params: JSONValue.object(p), as: CommunityPage.self)
    }

    /// `communities.get {community_id}`.
    /// - Throws: `.server(ServerError)`: `not_found`.
    public func community(_ communityId: Int64) async throws(SwitchboardClientError) -> CommunityInfo {
        try await request(op: "communities.get", params: ["community_id": .int(communityId)] as JSONValue, as: CommunityEnvelope.self)
            .community
    }

    /// `communities.create` (administrators): a new community.
    /// - Throws: `.server(ServerError)`: `forbidden`, `bad_request` (the name is taken).
    public func createCommunity(
        name: String, description: String? = nil, category: String? = nil, picture: String? = nil
    ) async throws(SwitchboardClientError) -> CommunityInfo {
        var p: [String: JSONValue] = ["name": .string(name)]
        if let description { p["description"] = .string(description) }
        if let category { p["category"] = .string(category) }
        if let picture { p["picture"] = .string(picture) }
        return try await request(op: "communities.create", params: JSONValue.object(p), as: CommunityEnvelope.self, resendable: false)
            .community
    }

    /// `communities.update` (administrators): any of `name`, `description`, `category`, `picture` (given fields only).
    public func updateCommunity(_ communityId: Int64, fields: [String: JSONValue]) async throws(SwitchboardClientError) -> CommunityInfo {
        var p = fields
        p["community_id"] = .int(communityId)
        return try await request(op: "communities.update", params: JSONValue.object(p), as: CommunityEnvelope.self).community
    }

    /// `communities.archive` (administrators).
    public func archiveCommunity(_ communityId: Int64) async throws(SwitchboardClientError) {
        try await request(op: "communities.archive", params: ["community_id": .int(communityId)] as JSONValue)
    }

    /// `communities.join`: nothing is unread on joining.
    /// - Throws: `.server(ServerError)`: `already_member`, `not_found`.
    public func joinCommunity(_ communityId: Int64) async throws(SwitchboardClientError) -> CommunityInfo {
        try await request(
            op: "communities.join", params: ["community_id": .int(communityId)] as JSONValue, as: CommunityEnvelope.self, resendable: false
        ).community
    }

    /// `communities.quit`: also leaves the community's upcoming events.
    /// - Throws: `.server(ServerError)`: `forbidden` (not a member), `not_found`.
    public func quitCommunity(_ communityId: Int64) async throws(SwitchboardClientError) -> CommunityQuitResult {
        try await request(
            op: "communities.quit", params: ["community_id": .int(communityId)] as JSONValue, as: CommunityQuitResult.self, resendable: false)
    }

    /// `communities.members {community_id, limit?, cursor?}`: core members first, then by name.
    public func communityMembers(
        _ communityId: Int64, limit: Int? = nil, cursor: String? = nil
    ) async throws(SwitchboardClientError) -> CommunityMembersPage {
        var p: [String: JSONValue] = ["community_id": .int(communityId)]
        if let limit { p["limit"] = .int(Int64(limit)) }
        if let cursor { p["cursor"] = .string(cursor) }
        return try await request(op: "communities.members", params: JSONValue.object(p), as: CommunityMembersPage.self)
    }

    /// `communities.core {community_id, user_id, core}` (administrators): appoints or removes a core member.
    public func setCoreMember(_ communityId: Int64, userId: Int64, core: Bool) async throws(SwitchboardClientError) {
        try await request(
            op: "communities.core", params: ["community_id": .int(communityId), "user_id": .int(userId), "core": .bool(core)] as JSONValue)
    }

    /// `communities.unread`: the total and the joined communities with unread notifications.
    public func communityUnread() async throws(SwitchboardClientError) -> CommunityUnreadSummary {
        try await request(op: "communities.unread", as: CommunityUnreadSummary.self)
    }

    /// `communities.notifications {community_id, before_seq?, limit?}`, newest first.
    public func communityNotifications(
        _ communityId: Int64, beforeSeq: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> CommunityNotificationsPage {
        var p: [String: JSONValue] = ["community_id": .int(communityId)]
        if let beforeSeq { p["before_seq"] = .int(beforeSeq) }
        if let limit { p["limit"] = .int(Int64(limit)) }
        return try await request(op: "communities.notifications", params: JSONValue.object(p), as: CommunityNotificationsPage.self)
    }

    /// `communities.read {community_id, seq?}`: moves the read marker forward (default: to the newest).
    public func readCommunity(_ communityId: Int64, seq: Int64? = nil) async throws(SwitchboardClientError) -> CommunityReadResult {
        var p: [String: JSONValue] = ["community_id": .int(communityId)]
        if let seq { p["seq"] = .int(seq) }
        return try await request(op: "communities.read", params: JSONValue.object(p), as: CommunityReadResult.self)
    }
}

/// Events and the calendar (docs/protocol.md, "Events and calendar").
extension SwitchboardClient {
    /// `events.create` (administrators): `fields` holds `title`, `starts_at`, `ends_at`, `time_zone` and any of
    /// `description`, `place`, `capacity`. Publishes `event.published` to the members.
    /// - Throws: `.server(ServerError)`: `forbidden`, `not_found`, `bad_request`.
    public func createEvent(community communityId: Int64, fields: [String: JSONValue]) async throws(SwitchboardClientError)
        -> CommunityEventInfo
    {
        var p = fields
        p["community_id"] = .int(communityId)
        return try await request(op: "events.create", params: JSONValue.object(p), as: EventEnvelope.self, resendable: false).event
    }

    /// `events.update` (administrators): the given fields (`capacity: null` removes the limit).
    public func updateEvent(_ eventId: Int64, fields: [String: JSONValue]) async throws(SwitchboardClientError) -> CommunityEventInfo {
        var p = fields
        p["event_id"] = .int(eventId)
        return try await request(op: "events.update", params: JSONValue.object(p), as: EventEnvelope.self, resendable: false).event
    }

    /// `events.cancel` (administrators).
    public func cancelEvent(_ eventId: Int64) async throws(SwitchboardClientError) -> CommunityEventInfo {
        try await request(op: "events.cancel", params: ["event_id": .int(eventId)] as JSONValue, as: EventEnvelope.self).event
    }

    /// `events.list {community_id, direction?, cursor?, limit?}`: upcoming (default) or past events.
    public func events(
        community communityId: Int64, past: Bool = false, cursor: String? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> CommunityEventsPage {
        var p: [String: JSONValue] = ["community_id": .int(communityId), "direction": .string(past ? "past" : "upcoming")]
        if let cursor { p["cursor"] = .string(cursor) }
        if let limit { p["limit"] = .int(Int64(limit)) }
        return try await request(op: "events.list", params: JSONValue.object(p), as: CommunityEventsPage.self)
    }

    /// `events.get {event_id}`.
    public func event(_ eventId: Int64) async throws(SwitchboardClientError) -> CommunityEventInfo {
        try await request(op: "events.get", params: ["event_id": .int(eventId)] as JSONValue, as: EventEnvelope.self).event
    }

    /// `events.join {event_id}`.
    /// - Throws: `.server(ServerError)`: `forbidden`, `not_found`, `event_ended`, `event_full`, `already_joined`,
    ///   `invalid_state` (cancelled).
    public func joinEvent(_ eventId: Int64) async throws(SwitchboardClientError) -> CommunityEventInfo {
        try await request(op: "events.join", params: ["event_id": .int(eventId)] as JSONValue, as: EventEnvelope.self, resendable: false)
            .event
    }

    /// `events.drop {event_id}`.
    /// - Throws: `.server(ServerError)`: `not_joined`, `not_found`, `event_ended`.
    public func dropEvent(_ eventId: Int64) async throws(SwitchboardClientError) -> CommunityEventInfo {
        try await request(op: "events.drop", params: ["event_id": .int(eventId)] as JSONValue, as: EventEnvelope.self, resendable: false)
            .event
    }

    /// `calendar.get {range, date?, time_zone?, locale?}`: the joined events of a day, week, month or year.
    public func calendar(
        range: String, date: String? = nil, timeZone: String? = nil, locale: String? = nil
    ) async throws(SwitchboardClientError) -> CalendarView {
        var p: [String: JSONValue] = ["range": .string(range)]
        if let date { p["date"] = .string(date) }
        if let timeZone { p["time_zone"] = .string(timeZone) }
        if let locale { p["locale"] = .string(locale) }
        return try await request(op: "calendar.get", params: JSONValue.object(p), as: CalendarView.self)
    }
}

/// Announcements and courses (docs/protocol.md, "Announcements and courses").
extension SwitchboardClient {
    /// `community.posts.create` (core members, administrators): `fields` holds `title` and any of `body`,
    /// `voice_clip_id`, `video_url`, `position`.
    public func createPost(
        community communityId: Int64, kind: String, fields: [String: JSONValue]
    ) async throws(SwitchboardClientError) -> CommunityPostInfo {
        var p = fields
        p["community_id"] = .int(communityId)
        p["kind"] = .string(kind)
        return try await request(op: "community.posts.create", params: JSONValue.object(p), as: PostEnvelope.self, resendable: false).post
    }

    /// `community.posts.list {community_id, kind?, before?, limit?}`, newest first.
    public func posts(
        community communityId: Int64, kind: String = "announcement", before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> CommunityPostsPage {
        var p: [String: JSONValue] = ["community_id": .int(communityId), "kind": .string(kind)]
        if let before { p["before"] = .int(before) }
        if let limit { p["limit"] = .int(Int64(limit)) }
        return try await request(op: "community.posts.list", params: JSONValue.object(p), as: CommunityPostsPage.self)
    }

    /// `courses.get {community_id}`: the lessons by position and my progress.
    public func course(community communityId: Int64) async throws(SwitchboardClientError) -> CourseView {
        try await request(op: "courses.get", params: ["community_id": .int(communityId)] as JSONValue, as: CourseView.self)
    }

    /// `courses.complete {post_id, completed}`: marks a lesson completed (or not).
    public func completeLesson(_ postId: Int64, completed: Bool = true) async throws(SwitchboardClientError) -> CourseProgress {
        try await request(
            op: "courses.complete", params: ["post_id": .int(postId), "completed": .bool(completed)] as JSONValue, as: CourseProgress.self)
    }
}
