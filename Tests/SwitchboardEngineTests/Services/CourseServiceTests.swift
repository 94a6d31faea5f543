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
import Testing

@testable import SwitchboardServer

/// `CourseService` without sockets: who posts (and the core members' allowance on a manual clock), who edits and
/// deletes, who reads, lessons in order, progress and who sees it, and who hears which event.
@Suite("Course service (the test database, a manual clock)")
struct CourseServiceTests {
    let clock = ManualClock()

    /// A service whose core members may publish 2 posts, then one every 10 s.
    func service(_ limits: CommunityConfiguration = CommunityConfiguration()) throws -> CourseService {
        CourseService(
            db: try EngineTestDatabase.shared.pool, limits: limits,
            publications: SharedRateLimiter(capacity: 2, refillPerSecond: 0.1), clock: clock)
    }

    func post(
        _ communityId: Int64, _ kind: String = "announcement", _ title: String = "News", position: Int? = nil,
        voiceClipId: Int64? = nil
    ) -> Ops.CommunityPostsCreate.Parameters {
        Ops.CommunityPostsCreate.Parameters(
            communityId: communityId, kind: kind, title: title, voiceClipId: voiceClipId, position: position)
    }

    /// A stored voice clip of `owner`'s.
    func clip(of owner: Int64) async throws -> Int64 {
        let sha = (0..<32).map { _ in UInt8.random(in: 0...255) }
        return try await EngineTestDatabase.shared.pool.withConnection { db in
            try VoiceStore.store(db, uploader: owner, audio: [1, 2, 3], sha256: sha, durationMs: 1000, waveform: [0]).id
        }
    }

    @Test func coreMembersPostWithinTheirAllowanceAndEveryMemberIsNotified() async throws {
        let db = EngineTestDatabase.shared
        let (admin, core, ann, zed) = (
            try await db.user("admin"), try await db.user("core"), try await db.user("ann"), try await db.user("zed")
        )
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [ann], core: [core])
        let courses = try service()
        await #expect(throws: CommunityError.postersOnly) {
            _ = try await courses.create(Caller(userId: ann), post(community))
        }
        await #expect(throws: CommunityError.membersOnly) {
            _ = try await courses.create(Caller(userId: zed), post(community))
        }
        await #expect(throws: CommunityError.noSuchCommunity) {
            _ = try await courses.create(Caller(userId: admin), post(9_000_000_000))
        }
        let (first, told) = try await courses.create(Caller(userId: core), post(community))
        #expect(first.post.author?.userId == core && first.post.kind == "announcement")
        #expect(told.map(\.name) == ["community.notification"] && Set(told.first?.users ?? []) == [ann, core])
        let notification = try #require((told.first?.event as? CommunityNotificationEvent)?.notification)
        #expect(notification.kind == "announcement" && notification.postId == first.post.postId)
        _ = try await courses.create(Caller(userId: core), post(community))
        do {
            _ = try await courses.create(Caller(userId: core), post(community))
            Issue.record("a third post within the burst was accepted")
        } catch {
            guard case .rateLimited(let retryAfter) = error else { throw error }
            #expect(retryAfter > 9_000 && retryAfter <= 10_000)
            #expect(error.wire.message == "too many events and posts; try again later")
        }
        // Administrators are not counted; the core member's bucket refills on the clock.
        for _ in 0..<3 { _ = try await courses.create(Caller(userId: admin), post(community)) }
        clock.advance(by: 10)
        _ = try await courses.create(Caller(userId: core), post(community))
    }

    @Test func theRulesOfAPostComeBeforeTheDatabase() async throws {
        var limits = CommunityConfiguration()
        limits.maxPostCharacters = 5
        let courses = try service(limits)
        let me = Caller(userId: 9_000_000_000)
        let nowhere: Int64 = 9_000_000_000
        await #expect(throws: CommunityError.badPostKind) { _ = try await courses.create(me, post(nowhere, "poll")) }
        await #expect(throws: CommunityError.positionForLessonsOnly) {
            _ = try await courses.create(me, post(nowhere, position: 1))
        }
        await #expect(throws: CommunityError.badPosition) {
            _ = try await courses.create(me, post(nowhere, "lesson", position: 0))
        }
        var video = post(nowhere)
        video.videoUrl = "javascript:alert(1)"
        await #expect(throws: CommunityError.badVideoURL(maxBytes: 512)) { _ = try await courses.create(me, video) }
        var long = post(nowhere)
        long.body = "123456"
        await #expect(throws: CommunityError.self) { _ = try await courses.create(me, long) }
        await #expect(throws: CommunityError.nothingToChange) {
            _ = try await courses.update(me, Ops.CommunityPostsUpdate.Parameters(postId: 1))
        }
        await #expect(throws: CommunityError.badPostBefore) {
            _ = try await courses.list(viewer: 1, Ops.CommunityPostsList.Parameters(communityId: nowhere, before: 0))
        }
        await #expect(throws: CommunityError.badPostKind) {
            _ = try await courses.list(viewer: 1, Ops.CommunityPostsList.Parameters(communityId: nowhere, kind: "x"))
        }
    }

    @Test func authorsAndAdministratorsEditAndDelete() async throws {
        let db = EngineTestDatabase.shared
        let (admin, core, other, zed) = (
            try await db.user("admin"), try await db.user("core"), try await db.user("other"), try await db.user("zed")
        )
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [], core: [core, other])
        let courses = try service()
        let lesson = try await courses.create(Caller(userId: core), post(community, "lesson", "Intro")).0.post
        _ = try await courses.complete(Caller(userId: core), postId: lesson.postId, completed: true)
        // Another core member may not edit it; to a stranger it does not exist.
        await #expect(throws: CommunityError.authorsOnly) {
            _ = try await courses.update(
                Caller(userId: other), Ops.CommunityPostsUpdate.Parameters(postId: lesson.postId, title: "Mine"))
        }
        await #expect(throws: CommunityError.noSuchPost) {
            _ = try await courses.update(
                Caller(userId: zed), Ops.CommunityPostsUpdate.Parameters(postId: lesson.postId, title: "Mine"))
        }
        // Only one's own voice clips are attached.
        let othersClip = try await clip(of: other)
        await #expect(throws: CommunityError.noSuchVoiceClip) {
            _ = try await courses.update(
                Caller(userId: core),
                Ops.CommunityPostsUpdate.Parameters(postId: lesson.postId, voiceClipId: othersClip))
        }
        let mine = try await clip(of: core)
        let (edited, told) = try await courses.update(
            Caller(userId: core),
            Ops.CommunityPostsUpdate.Parameters(postId: lesson.postId, title: "Introduction", voiceClipId: mine))
        #expect(edited.post.title == "Introduction" && edited.post.voiceClipId == mine && edited.post.completed)
        #expect(told.map(\.name) == ["community.post.updated"] && Set(told.first?.users ?? []) == [core, other])
        // The members hear the post without the author's own progress.
        #expect((told.first?.event as? CourseEvents.PostUpdated)?.post.completed == false)
        // An administrator may edit and delete anyone's post.
        _ = try await courses.update(
            Caller(userId: admin), Ops.CommunityPostsUpdate.Parameters(postId: lesson.postId, videoUrl: .some(nil)))
        let deleted = try await courses.delete(Caller(userId: admin), postId: lesson.postId)
        #expect(deleted.map(\.name) == ["community.post.deleted"] && Set(deleted.first?.users ?? []) == [core, other])
        await #expect(throws: CommunityError.noSuchPost) {
            _ = try await courses.delete(Caller(userId: admin), postId: lesson.postId)
        }
        // In an archived community nothing is written any more.
        let kept = try await courses.create(Caller(userId: core), post(community)).0.post
        _ = try await CommunityService(db: try db.pool, limits: CommunityConfiguration())
            .archive(Caller(userId: admin), communityId: community)
        await #expect(throws: CommunityError.archivedCourse) {
            _ = try await courses.create(Caller(userId: admin), post(community))
        }
        await #expect(throws: CommunityError.archivedCourse) {
            _ = try await courses.delete(Caller(userId: core), postId: kept.postId)
        }
    }

    @Test func lessonsInOrderAndProgressForTheRightPeople() async throws {
        let db = EngineTestDatabase.shared
        let (admin, core, ann, bob, zed) = (
            try await db.user("admin"), try await db.user("core"), try await db.user("ann"), try await db.user("bob"),
            try await db.user("zed")
        )
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [ann, bob], core: [core])
        let courses = try service()
        let admins = Caller(userId: admin)
        let two = try await courses.create(admins, post(community, "lesson", "Two")).0.post
        let three = try await courses.create(admins, post(community, "lesson", "Three")).0.post
        // Inserted first: the others move one place down.
        let one = try await courses.create(admins, post(community, "lesson", "One", position: 1)).0.post
        let news = try await courses.create(admins, post(community)).0.post
        let course = try await courses.course(communityId: community, viewer: ann)
        #expect(course.lessons.map(\.postId) == [one.postId, two.postId, three.postId])
        #expect(course.lessons.map(\.position) == [1, 2, 3] && course.completed == 0 && course.total == 3)
        await #expect(throws: CommunityError.membersOnly) {
            _ = try await courses.course(communityId: community, viewer: zed)
        }

        let (done, told) = try await courses.complete(Caller(userId: ann), postId: two.postId, completed: true)
        #expect(done.completed == 1 && done.total == 3)
        #expect(told.map(\.name) == ["course.progress"] && told.first?.users == [ann])
        #expect((told.first?.event as? CourseEvents.Progress)?.completedCount == 1)
        await #expect(throws: CommunityError.notALesson) {
            _ = try await courses.complete(Caller(userId: ann), postId: news.postId, completed: true)
        }
        // Administrators read every course but follow none they are not members of.
        await #expect(throws: CommunityError.courseMembersOnly) {
            _ = try await courses.complete(admins, postId: one.postId, completed: true)
        }
        await #expect(throws: CommunityError.membersOnly) {
            _ = try await courses.complete(Caller(userId: zed), postId: one.postId, completed: true)
        }

        // Progress: core members and administrators only, by name, in pages.
        await #expect(throws: CommunityError.progressCoreOnly) {
            _ = try await courses.progress(communityId: community, viewer: ann, cursor: nil, limit: nil)
        }
        let page = try await courses.progress(communityId: community, viewer: core, cursor: nil, limit: 2)
        #expect(page.members.map(\.user.userId) == [ann, bob] && page.total == 3)
        #expect(page.members.map(\.completed) == [1, 0])
        let rest = try await courses.progress(communityId: community, viewer: admin, cursor: page.nextCursor, limit: 2)
        #expect(rest.members.map(\.user.userId) == [core] && rest.nextCursor == nil)
        await #expect(throws: CommunityError.badCursor) {
            _ = try await courses.progress(communityId: community, viewer: core, cursor: "-3", limit: nil)
        }

        // The announcements, newest first, in pages.
        let list = try await courses.list(
            viewer: ann, Ops.CommunityPostsList.Parameters(communityId: community, kind: "lesson", limit: 2))
        #expect(list.posts.map(\.postId) == [one.postId, three.postId] && list.nextBefore == three.postId)
        await #expect(throws: CommunityError.membersOnly) {
            _ = try await courses.list(viewer: zed, Ops.CommunityPostsList.Parameters(communityId: community))
        }
    }
}
