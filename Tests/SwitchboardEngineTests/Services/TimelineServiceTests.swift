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

/// `TimelineService` without sockets: the cursors' rules before the database, home paging from one snapshot's
/// `after`, and visibility (a blocked or unknown user is `noSuchUser`, a protected account's page
/// `protectedPosts`, an invisible post `noSuchPost`).
@Suite("Timeline service (the test database)")
struct TimelineServiceTests {
    /// Pages of at most 5 posts; the profile a user's page shows is a stand-in named after the user.
    func service() throws -> TimelineService {
        var limits = SocialPostConfiguration()
        limits.defaultPage = 2
        limits.maxPage = 5
        return TimelineService(db: try EngineTestDatabase.shared.pool, limits: limits) { user, _ in
            UserProfile(userId: user, displayName: "user \(user)")
        }
    }

    @Test func theCursorsAreCheckedBeforeTheDatabase() async throws {
        let timelines = try service()
        await #expect(throws: TimelineError.pageLimit(max: 5)) {
            _ = try await timelines.home(viewer: 1, before: nil, after: nil, limit: 6)
        }
        await #expect(throws: TimelineError.bothCursors) {
            _ = try await timelines.home(viewer: 1, before: 5, after: 1, limit: nil)
        }
        await #expect(throws: TimelineError.badBefore) {
            _ = try await timelines.mentions(viewer: 1, before: 0, after: nil, limit: nil)
        }
        await #expect(throws: TimelineError.badAfter) {
            _ = try await timelines.hashtag(viewer: 1, tag: "x", before: nil, after: -1, limit: nil)
        }
        await #expect(throws: TimelineError.badHashtag) {
            _ = try await timelines.hashtag(viewer: 1, tag: "#", before: nil, after: nil, limit: nil)
        }
        await #expect(throws: TimelineError.userOrHandle) {
            _ = try await timelines.user(
                viewer: 1, userId: 2, handle: "x", replies: false, before: nil, after: nil, limit: nil)
        }
        await #expect(throws: TimelineError.noSuchUser) {
            _ = try await timelines.user(
                viewer: 1, userId: nil, handle: "@no such", replies: false, before: nil, after: nil, limit: nil)
        }
        await #expect(throws: TimelineError.badLikeCursor) {
            _ = try await timelines.likes(viewer: 1, userId: nil, before: 0, limit: nil)
        }
        await #expect(throws: TimelineError.badAfter) {
            _ = try await timelines.thread(viewer: 1, postId: 1, after: -1, limit: nil)
        }
    }

    @Test func homePagesFromOneSnapshotAndPrivatePagesAreRefused() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, cat, sam) = (
            try await db.user("ann"), try await db.user("bob"), try await db.user("cat"), try await db.user("sam")
        )
        let bobs = try await giveHandle(bob)
        try await giveHandle(cat, protected: true)
        try await giveHandle(sam)
        try await serviceFollow(ann, bob)
        let clock = ManualClock()
        let posts = try postService(RecordingPublisher(), clock: clock)
        var ids: [Int64] = []
        for n in 0..<2 {
            ids.append(
                try await posts.create(
                    Caller(userId: bob), text: "b\(n)", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil
                ).post.postId)
        }
        let cats = try await posts.create(
            Caller(userId: cat), text: "mine", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil
        ).post.postId
        let timelines = try service()
        let home = try await timelines.home(viewer: ann, before: nil, after: nil, limit: nil)
        #expect(home.posts.map(\.postId) == ids.reversed())
        // Nothing newer than the snapshot's clock yet; a post after it is the next "after" page.
        let after = home.after
        #expect(try await timelines.home(viewer: ann, before: nil, after: after, limit: nil).posts.isEmpty)
        clock.advance(by: 10)
        let newer = try await posts.create(
            Caller(userId: bob), text: "b2", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil
        ).post.postId
        #expect(
            try await timelines.home(viewer: ann, before: nil, after: after, limit: nil).posts.map(\.postId) == [newer])
        // Bob's page by handle, with the profile; Cat's is for her followers; a block hides Sam's page.
        let page = try await timelines.user(
            viewer: ann, userId: nil, handle: "@\(bobs)", replies: false, before: nil, after: nil, limit: 5)
        #expect(page.profile.userId == bob)
        #expect(page.posts.count == 3)
        await #expect(throws: TimelineError.protectedPosts) {
            _ = try await timelines.user(
                viewer: ann, userId: cat, handle: nil, replies: false, before: nil, after: nil, limit: nil)
        }
        await #expect(throws: TimelineError.noSuchPost) {
            _ = try await timelines.thread(viewer: ann, postId: cats, after: nil, limit: nil)
        }
        try await serviceBlock(sam, ann)
        await #expect(throws: TimelineError.noSuchUser) {
            _ = try await timelines.user(
                viewer: ann, userId: sam, handle: nil, replies: false, before: nil, after: nil, limit: nil)
        }
        await #expect(throws: TimelineError.noSuchUser) {
            _ = try await timelines.likes(viewer: ann, userId: sam, before: nil, limit: nil)
        }
        let thread = try await timelines.thread(viewer: ann, postId: ids[0], after: nil, limit: nil)
        #expect(thread.post.postId == ids[0])
    }
}
