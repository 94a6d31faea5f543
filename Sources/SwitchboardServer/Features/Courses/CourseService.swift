//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// Announcements and courses' use cases (docs/protocol.md, "Announcements and courses"): a community's posts, its
/// lessons in order, and each member's progress. Each is one read or one transaction on the database seam, the
/// rules checked first, the events to tell returned with the result.
///
/// Core members and administrators post; members and administrators read; members mark lessons completed. A new
/// post is one transaction (the community's row lock, the lesson's place, the row, the community notification of
/// `CommunityNotifications.publish`), told to every member after the commit; a core member's posts count against
/// its hourly allowance (`publications`, on `clock`), administrators' do not. Edits and deletions are told to the
/// members with `community.post.updated` / `community.post.deleted` (no notification); a member's progress to that
/// member's own devices with `course.progress`.
final class CourseService: Sendable {
    let db: any Database
    let limits: CommunityConfiguration
    /// A core member's publications per hour (`CommunityConfiguration.publicationsPerHour`, also the burst). It is
    /// the bucket of `events.create` too, whose callers (administrators) are never counted: only posts take from it.
    let publications: SharedRateLimiter<Int64>
    /// Monotonic nanoseconds for the rate limiter (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(
        db: any Database, limits: CommunityConfiguration, publications: SharedRateLimiter<Int64>,
        clock: any EngineClock = SystemClock()
    ) {
        self.db = db
        self.limits = limits
        self.publications = publications
        self.clock = clock
    }

    /// The allowance `limits` describe: `publicationsPerHour` per hour, also the burst.
    static func publicationLimiter(_ limits: CommunityConfiguration) -> SharedRateLimiter<Int64> {
        SharedRateLimiter(
            capacity: max(1, limits.publicationsPerHour),
            refillPerSecond: max(0.0001, limits.publicationsPerHour / 3600))
    }

    /// `community.posts.create` (core members and administrators of a live community): an announcement or a lesson
    /// (at `position`, the later lessons moving down); the members hear `community.notification`.
    func create(
        _ caller: Caller, _ p: Ops.CommunityPostsCreate.Parameters
    ) async throws(CommunityError) -> (CommunityPostResult, [DomainEvent]) {
        guard p.kind == "announcement" || p.kind == "lesson" else { throw .badPostKind }
        try limits.check(p.title, limits.titleRule)
        try limits.check(p.body, limits.bodyRule)
        try checkVideo(p.videoUrl)
        if let position = p.position {
            guard p.kind == "lesson" else { throw .positionForLessonsOnly }
            guard position >= 1 else { throw .badPosition }
        }
        let me = caller.userId
        let (post, notice) = try await db.write(as: CommunityError.self) { [self] db in
            guard try CoursePostRepository.lockCommunity(db, communityId: p.communityId) else {
                throw CommunityError.noSuchCommunity
            }
            let membership = try CommunityRepository.membership(db, communityId: p.communityId, userId: me)
            try Self.requirePoster(membership)
            // Core members' posts count against their hourly allowance; administrators run the communities.
            if membership?.administrator != true { try countPublication(caller) }
            if let clip = p.voiceClipId { try Self.requireOwnClip(db, clip, me) }
            let post = try CoursePostRepository.create(
                db, communityId: p.communityId, authorId: me, kind: p.kind, title: p.title, body: p.body ?? "",
                voiceClipId: p.voiceClipId, videoUrl: p.videoUrl, position: p.position)
            let notification = try CommunityNotifications.publish(
                db, communityId: p.communityId, kind: p.kind, postId: post.postId, actorId: me, title: p.title)
            let members = try CommunityRepository.memberIds(db, communityId: p.communityId)
            return (post, CommunityService.notificationEvent(notification, to: members))
        }
        return (CommunityPostResult(post: post), [notice])
    }

    /// `community.posts.update` (its author or an administrator): the given fields (`voice_clip_id` or `video_url`
    /// null removes it); the members hear `community.post.updated`.
    func update(
        _ caller: Caller, _ p: Ops.CommunityPostsUpdate.Parameters
    ) async throws(CommunityError) -> (CommunityPostResult, [DomainEvent]) {
        guard p.title != nil || p.body != nil || p.voiceClipId != nil || p.videoUrl != nil else {
            throw .nothingToChange
        }
        try limits.check(p.title, limits.titleRule)
        try limits.check(p.body, limits.bodyRule)
        if let video = p.videoUrl { try checkVideo(video) }
        let me = caller.userId
        let (post, members) = try await db.write(as: CommunityError.self) { db in
            let info = try Self.editablePost(db, postId: p.postId, me: me)
            if let clip = p.voiceClipId ?? nil { try Self.requireOwnClip(db, clip, me) }
            try CoursePostRepository.update(
                db, postId: p.postId, title: p.title, body: p.body, voiceClipId: p.voiceClipId, videoUrl: p.videoUrl)
            guard let post = try CoursePostRepository.post(db, postId: p.postId, viewer: me) else {
                throw CommunityError.noSuchPost
            }
            return (post, try CommunityRepository.memberIds(db, communityId: info.communityId))
        }
        var shared = post
        shared.completed = false
        return (CommunityPostResult(post: post), [DomainEvent(to: members, CourseEvents.PostUpdated(post: shared))])
    }

    /// `community.posts.delete` (its author or an administrator): the post is deleted (the other lessons keep their
    /// places); the members hear `community.post.deleted`.
    func delete(_ caller: Caller, postId: Int64) async throws(CommunityError) -> [DomainEvent] {
        let me = caller.userId
        let (communityId, members) = try await db.write(as: CommunityError.self) { db in
            let info = try Self.editablePost(db, postId: postId, me: me)
            guard try CoursePostRepository.delete(db, postId: postId) else { throw CommunityError.noSuchPost }
            return (info.communityId, try CommunityRepository.memberIds(db, communityId: info.communityId))
        }
        return [DomainEvent(to: members, CourseEvents.PostDeleted(communityId: communityId, postId: postId))]
    }

    /// `community.posts.list` (members and administrators): a community's live posts of one kind, newest first, in
    /// pages.
    func list(viewer: Int64, _ p: Ops.CommunityPostsList.Parameters) async throws(CommunityError)
        -> Ops
        .CommunityPostsList.Result
    {
        let kind = p.kind ?? "announcement"
        guard kind == "announcement" || kind == "lesson" else { throw .badPostKind }
        let limit = try limits.page(p.limit)
        if let before = p.before, before < 1 { throw .badPostBefore }
        let posts = try await db.read(as: CommunityError.self) { db in
            try Self.requireReader(try CommunityRepository.membership(db, communityId: p.communityId, userId: viewer))
            return try CoursePostRepository.list(
                db, communityId: p.communityId, kind: kind, before: p.before, limit: limit + 1, viewer: viewer)
        }
        let page = Array(posts.prefix(limit))
        return .init(posts: page, nextBefore: posts.count > limit ? page.last?.postId : nil)
    }

    /// `courses.get` (members and administrators): the lessons in order, each with whether the viewer completed it.
    func course(communityId: Int64, viewer: Int64) async throws(CommunityError) -> Ops.CoursesGet.Result {
        let lessons = try await db.read(as: CommunityError.self) { db in
            try Self.requireReader(try CommunityRepository.membership(db, communityId: communityId, userId: viewer))
            return try CoursePostRepository.lessons(db, communityId: communityId, viewer: viewer)
        }
        return .init(lessons: lessons, completed: lessons.filter(\.completed).count, total: lessons.count)
    }

    /// `courses.complete` (members of a live community): marks a lesson completed (or not); the caller's devices
    /// hear `course.progress` with its counts.
    func complete(
        _ caller: Caller, postId: Int64, completed: Bool
    ) async throws(CommunityError) -> (Ops.CoursesComplete.Result, [DomainEvent]) {
        let me = caller.userId
        let (communityId, progress) = try await db.write(as: CommunityError.self) { db in
            guard let info = try CoursePostRepository.info(db, postId: postId) else { throw CommunityError.noSuchPost }
            let membership = try CommunityRepository.membership(db, communityId: info.communityId, userId: me)
            try Self.requireReader(membership)
            guard membership?.role != nil else { throw CommunityError.courseMembersOnly }
            guard membership?.archived == false else { throw CommunityError.archivedCourse }
            guard info.kind == "lesson" else { throw CommunityError.notALesson }
            _ = try CoursePostRepository.setCompleted(db, postId: postId, userId: me, completed: completed)
            return (info.communityId, try CoursePostRepository.progress(db, communityId: info.communityId, userId: me))
        }
        let event = CourseEvents.Progress(
            communityId: communityId, postId: postId, completed: completed, completedCount: progress.completed,
            total: progress.total)
        return (.init(completed: progress.completed, total: progress.total), [DomainEvent(to: [me], event)])
    }

    /// `courses.progress` (core members and administrators): every member's count of completed lessons, by name, in
    /// pages.
    func progress(
        communityId: Int64, viewer: Int64, cursor: String?, limit: Int?
    ) async throws(CommunityError) -> Ops.CoursesProgress.Result {
        let limit = try limits.page(limit, people: true)
        let after: Int64? = try cursor.map { cursor throws(CommunityError) in
            guard let id = Int64(cursor), id > 0 else { throw .badCursor }
            return id
        }
        let (members, total) = try await db.read(as: CommunityError.self) { db in
            let membership = try CommunityRepository.membership(db, communityId: communityId, userId: viewer)
            try Self.requireReader(membership)
            guard membership?.role == "core" || membership?.administrator == true else {
                throw CommunityError.progressCoreOnly
            }
            let members = try CoursePostRepository.memberProgress(
                db, communityId: communityId, after: after, limit: limit + 1)
            return (members, try CoursePostRepository.progress(db, communityId: communityId, userId: viewer).total)
        }
        let page = Array(members.prefix(limit))
        return .init(
            members: page, total: total,
            nextCursor: members.count > limit ? page.last.map { String($0.user.userId) } : nil)
    }

    // MARK: - Rules

    /// Members-only content: `noSuchCommunity` for no such community (or an archived one the user is not in and
    /// does not administer), `membersOnly` for a live community the user is not a member of (administrators read
    /// every one).
    static func requireReader(_ membership: CommunityMembership?) throws(CommunityError) {
        guard let membership else { throw .noSuchCommunity }
        try membership.requireReader()
    }

    /// Posting: core members and administrators, in a live community.
    static func requirePoster(_ membership: CommunityMembership?) throws(CommunityError) {
        try requireReader(membership)
        guard let membership, membership.role == "core" || membership.administrator else { throw .postersOnly }
        guard !membership.archived else { throw .archivedCourse }
    }

    /// A live post the user may edit or delete: its author (still able to read the community) or an administrator;
    /// to anyone who may not read the community the post does not exist.
    static func editablePost(_ db: PostgresConnection, postId: Int64, me: Int64) throws -> CoursePostRepository.PostInfo
    {
        guard let info = try CoursePostRepository.info(db, postId: postId, lock: true) else {
            throw CommunityError.noSuchPost
        }
        let membership = try CommunityRepository.membership(db, communityId: info.communityId, userId: me)
        do { try requireReader(membership) } catch { throw error == .membersOnly ? CommunityError.noSuchPost : error }
        guard info.authorId == me || membership?.administrator == true else { throw CommunityError.authorsOnly }
        guard membership?.archived == false else { throw CommunityError.archivedCourse }
        return info
    }

    /// A voice clip is attached only by the user who uploaded it (`POST /voice`): anyone else's is
    /// `noSuchVoiceClip`, like `GET /voice/ID`.
    static func requireOwnClip(_ db: PostgresConnection, _ clipId: Int64, _ me: Int64) throws {
        guard try VoiceStore.owned(db, id: clipId, by: me) != nil else { throw CommunityError.noSuchVoiceClip }
    }

    /// A video link: an absolute http or https URL with a host, at most `maxURLBytes` bytes.
    func checkVideo(_ url: String?) throws(CommunityError) {
        guard let url else { return }
        guard url.utf8.count <= limits.maxURLBytes, let parsed = URLComponents(string: url),
            let scheme = parsed.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = parsed.host,
            !host.isEmpty
        else { throw .badVideoURL(maxBytes: limits.maxURLBytes) }
    }

    /// Takes one publication from the caller's allowance, or refuses with its retry time.
    func countPublication(_ caller: Caller) throws(CommunityError) {
        let attempt = publications.attempt(caller.userId, now: clock.now(), sharedBy: caller.limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds { throw .rateLimited(retryAfterMilliseconds: retryAfter) }
    }
}
