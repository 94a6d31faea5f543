//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardProtocol

// Communities, events, the calendar, announcements and courses (docs/protocol.md, "Communities"). Every call goes
// through `send` with the op's declaration in `SwitchboardProtocol` (`Operations/Communities.swift`,
// `Events.swift`, `Courses.swift`): the parameters and results are the server's own types.

/// Communities (docs/protocol.md, "Communities").
extension SwitchboardClient {
    /// `communities.list {limit?, cursor?}`: joined communities first, then the others, each by name.
    public func communities(limit: Int? = nil, cursor: String? = nil) async throws(SwitchboardClientError)
        -> Ops.CommunitiesList.Result
    {
        try await send(Ops.CommunitiesList.self, .init(limit: limit, cursor: cursor))
    }

    /// `communities.get {community_id}`.
    /// - Throws: `.server(ServerError)`: `not_found`.
    public func community(_ communityId: Int64) async throws(SwitchboardClientError) -> Community {
        try await send(Ops.CommunitiesGet.self, .init(communityId: communityId)).community
    }

    /// `communities.create` (administrators): a new community.
    /// - Throws: `.server(ServerError)`: `forbidden`, `bad_request` (the name is taken).
    public func createCommunity(
        name: String, description: String? = nil, category: String? = nil, picture: String? = nil
    ) async throws(SwitchboardClientError) -> Community {
        try await send(
            Ops.CommunitiesCreate.self,
            .init(name: name, description: description, category: category, picture: picture), resendable: false
        ).community
    }

    /// `communities.update` (administrators): the given fields only (nil: unchanged; `picture` "" removes the picture).
    public func updateCommunity(
        _ communityId: Int64, name: String? = nil, description: String? = nil, category: String? = nil,
        picture: String? = nil
    ) async throws(SwitchboardClientError) -> Community {
        try await send(
            Ops.CommunitiesUpdate.self,
            .init(communityId: communityId, name: name, description: description, category: category, picture: picture)
        ).community
    }

    /// `communities.archive` (administrators).
    public func archiveCommunity(_ communityId: Int64) async throws(SwitchboardClientError) {
        try await send(Ops.CommunitiesArchive.self, .init(communityId: communityId))
    }

    /// `communities.join`: nothing is unread on joining.
    /// - Throws: `.server(ServerError)`: `already_member`, `not_found`.
    public func joinCommunity(_ communityId: Int64) async throws(SwitchboardClientError) -> Community {
        try await send(Ops.CommunitiesJoin.self, .init(communityId: communityId), resendable: false).community
    }

    /// `communities.quit`: also leaves the community's upcoming events.
    /// - Throws: `.server(ServerError)`: `forbidden` (not a member), `not_found`.
    public func quitCommunity(_ communityId: Int64) async throws(SwitchboardClientError) -> Ops.CommunitiesQuit.Result {
        try await send(Ops.CommunitiesQuit.self, .init(communityId: communityId), resendable: false)
    }

    /// `communities.members {community_id, limit?, cursor?}`: core members first, then by name.
    public func communityMembers(
        _ communityId: Int64, limit: Int? = nil, cursor: String? = nil
    ) async throws(SwitchboardClientError) -> Ops.CommunitiesMembers.Result {
        try await send(Ops.CommunitiesMembers.self, .init(communityId: communityId, limit: limit, cursor: cursor))
    }

    /// `communities.core {community_id, user_id, core}` (administrators): appoints or removes a core member.
    public func setCoreMember(_ communityId: Int64, userId: Int64, core: Bool) async throws(SwitchboardClientError) {
        try await send(Ops.CommunitiesCore.self, .init(communityId: communityId, userId: userId, core: core))
    }

    /// `communities.unread`: the total and the joined communities with unread notifications.
    public func communityUnread() async throws(SwitchboardClientError) -> Ops.CommunitiesUnread.Result {
        try await send(Ops.CommunitiesUnread.self, Empty())
    }

    /// `communities.notifications {community_id, before_seq?, limit?}`, newest first.
    public func communityNotifications(
        _ communityId: Int64, beforeSeq: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> Ops.CommunitiesNotifications.Result {
        try await send(
            Ops.CommunitiesNotifications.self, .init(communityId: communityId, beforeSeq: beforeSeq, limit: limit))
    }

    /// `communities.read {community_id, seq?}`: moves the read marker forward (default: to the newest).
    public func readCommunity(_ communityId: Int64, seq: Int64? = nil) async throws(SwitchboardClientError)
        -> Ops.CommunitiesRead.Result
    {
        try await send(Ops.CommunitiesRead.self, .init(communityId: communityId, seq: seq))
    }
}

/// Events and the calendar (docs/protocol.md, "Events and calendar").
extension SwitchboardClient {
    /// `events.create` (administrators): publishes `event.published` to the members. Times are wire timestamps.
    /// - Throws: `.server(ServerError)`: `forbidden`, `not_found`, `bad_request`.
    public func createEvent(
        community communityId: Int64, title: String, startsAt: String, endsAt: String, timeZone: String,
        description: String? = nil,
        place: String? = nil, capacity: Int64? = nil
    ) async throws(SwitchboardClientError) -> EventInfo {
        try await createEvent(
            .init(
                communityId: communityId, title: title, description: description, place: place, startsAt: startsAt,
                endsAt: endsAt,
                timeZone: timeZone, capacity: capacity))
    }

    /// `events.create` with its parameters as the protocol declares them.
    public func createEvent(_ parameters: Ops.EventsCreate.Parameters) async throws(SwitchboardClientError) -> EventInfo
    {
        try await send(Ops.EventsCreate.self, parameters, resendable: false).event
    }

    /// `events.update` (administrators): the given fields (nil: unchanged); `capacity` `.some(nil)` removes the
    /// limit (sent as `capacity: null`), `.none` leaves it.
    public func updateEvent(
        _ eventId: Int64, title: String? = nil, description: String? = nil, place: String? = nil,
        startsAt: String? = nil,
        endsAt: String? = nil, timeZone: String? = nil, capacity: Int64?? = .none
    ) async throws(SwitchboardClientError) -> EventInfo {
        try await updateEvent(
            .init(
                eventId: eventId, title: title, description: description, place: place, startsAt: startsAt,
                endsAt: endsAt,
                timeZone: timeZone, capacity: capacity))
    }

    /// `events.update` with its parameters as the protocol declares them.
    public func updateEvent(_ parameters: Ops.EventsUpdate.Parameters) async throws(SwitchboardClientError) -> EventInfo
    {
        try await send(Ops.EventsUpdate.self, parameters, resendable: false).event
    }

    /// `events.cancel` (administrators).
    public func cancelEvent(_ eventId: Int64) async throws(SwitchboardClientError) -> EventInfo {
        try await send(Ops.EventsCancel.self, .init(eventId: eventId)).event
    }

    /// `events.list {community_id, direction?, cursor?, limit?}`: upcoming (default) or past events.
    public func events(
        community communityId: Int64, past: Bool = false, cursor: String? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> Ops.EventsList.Result {
        try await send(
            Ops.EventsList.self,
            .init(communityId: communityId, direction: past ? "past" : "upcoming", cursor: cursor, limit: limit))
    }

    /// `events.get {event_id}`.
    public func event(_ eventId: Int64) async throws(SwitchboardClientError) -> EventInfo {
        try await send(Ops.EventsGet.self, .init(eventId: eventId)).event
    }

    /// `events.join {event_id}`.
    /// - Throws: `.server(ServerError)`: `forbidden`, `not_found`, `event_ended`, `event_full`, `already_joined`,
    ///   `invalid_state` (cancelled).
    public func joinEvent(_ eventId: Int64) async throws(SwitchboardClientError) -> EventInfo {
        try await send(Ops.EventsJoin.self, .init(eventId: eventId), resendable: false).event
    }

    /// `events.drop {event_id}`.
    /// - Throws: `.server(ServerError)`: `not_joined`, `not_found`, `event_ended`.
    public func dropEvent(_ eventId: Int64) async throws(SwitchboardClientError) -> EventInfo {
        try await send(Ops.EventsDrop.self, .init(eventId: eventId), resendable: false).event
    }

    /// `calendar.get {range, date?, time_zone?, locale?}`: the joined events of a day, week, month or year.
    public func calendar(
        range: String, date: String? = nil, timeZone: String? = nil, locale: String? = nil
    ) async throws(SwitchboardClientError) -> CalendarResult {
        try await send(Ops.CalendarGet.self, .init(range: range, date: date, timeZone: timeZone, locale: locale))
    }
}

/// Announcements and courses (docs/protocol.md, "Announcements and courses").
extension SwitchboardClient {
    /// `community.posts.create` (core members, administrators): an announcement or a lesson (`position` for lessons).
    public func createPost(
        community communityId: Int64, kind: String, title: String, body: String? = nil, voiceClipId: Int64? = nil,
        videoUrl: String? = nil, position: Int? = nil
    ) async throws(SwitchboardClientError) -> CommunityPost {
        try await send(
            Ops.CommunityPostsCreate.self,
            .init(
                communityId: communityId, kind: kind, title: title, body: body, voiceClipId: voiceClipId,
                videoUrl: videoUrl,
                position: position),
            resendable: false
        ).post
    }

    /// `community.posts.list {community_id, kind?, before?, limit?}`, newest first.
    public func posts(
        community communityId: Int64, kind: String = "announcement", before: Int64? = nil, limit: Int? = nil
    ) async throws(SwitchboardClientError) -> Ops.CommunityPostsList.Result {
        try await send(
            Ops.CommunityPostsList.self, .init(communityId: communityId, kind: kind, before: before, limit: limit))
    }

    /// `courses.get {community_id}`: the lessons by position and my progress.
    public func course(community communityId: Int64) async throws(SwitchboardClientError) -> Ops.CoursesGet.Result {
        try await send(Ops.CoursesGet.self, .init(communityId: communityId))
    }

    /// `courses.complete {post_id, completed}`: marks a lesson completed (or not).
    public func completeLesson(_ postId: Int64, completed: Bool = true) async throws(SwitchboardClientError)
        -> Ops.CoursesComplete.Result
    {
        try await send(Ops.CoursesComplete.self, .init(postId: postId, completed: completed))
    }
}
