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

/// `PostService` without sockets: its rules before the database, visibility (a stranger or a protected author's
/// non-follower gets `noSuchPost`, never data), exact counts, what live pages are told after each commit, and the
/// buckets on a manual clock.
@Suite("Post service (the test database, a manual clock)")
struct PostServiceTests {
    let clock = ManualClock()
    let live = RecordingPublisher()

    @Test func theRulesComeBeforeTheDatabaseAndPostingNeedsAHandle() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        let posts = try postService(live, clock: clock)
        let me = Caller(userId: ann)
        await #expect(throws: PostError.tooManyPhotos(max: 2)) {
            _ = try await posts.create(
                me, text: "x", replyTo: nil, voiceClipId: nil, photoIds: [1, 2, 3], clientId: nil)
        }
        await #expect(throws: PostError.invalidText("text is empty")) {
            _ = try await posts.create(me, text: "  ", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil)
        }
        await #expect(throws: PostError.invalidText("text is longer than 20 characters")) {
            _ = try await posts.create(
                me, text: String(repeating: "a", count: 21), replyTo: nil, voiceClipId: nil, photoIds: nil,
                clientId: nil)
        }
        await #expect(throws: PostError.noSuchPost) {
            _ = try await posts.create(me, text: "hi", replyTo: 0, voiceClipId: nil, photoIds: nil, clientId: nil)
        }
        let badId = await thrown(PostError.self) {
            _ = try await posts.create(
                me, text: "hi", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: "a\u{0}")
        }
        #expect(badId?.wire.code == .badRequest)
        // Without a handle: refused in the transaction, nothing published.
        await #expect(throws: PostError.handleRequired) {
            _ = try await posts.create(me, text: "hi", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil)
        }
        #expect(live.changes.isEmpty)
        try await giveHandle(ann)
        // Photos: someone else's is no photo of the author's; a repeated one is refused; nothing is stored.
        let bobs = try await servicePhoto(owner: bob)
        let mine = try await servicePhoto(owner: ann)
        await #expect(throws: PostError.noSuchPhoto) {
            _ = try await posts.create(me, text: nil, replyTo: nil, voiceClipId: nil, photoIds: [bobs], clientId: nil)
        }
        clock.advance(by: 10)
        await #expect(throws: PostError.duplicatePhotos) {
            _ = try await posts.create(
                me, text: nil, replyTo: nil, voiceClipId: nil, photoIds: [mine, mine], clientId: nil)
        }
        #expect(live.changes.isEmpty)
        #expect(PostError.noSuchVoiceClip.wire.message == "no such voice clip")
    }

    @Test func aPostIsPublishedOnceAndAResendIsTheStoredOne() async throws {
        let db = EngineTestDatabase.shared
        let ann = try await db.user("ann")
        try await giveHandle(ann)
        let posts = try postService(live, clock: clock)
        let created = try await posts.create(
            Caller(userId: ann), text: "hello #lake", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: "p-1")
        #expect(created.post.text == "hello #lake")
        #expect(created.post.author.userId == ann)
        #expect(live.changes == ["postCreated(postId: \(created.post.postId))"])
        let again = try await posts.create(
            Caller(userId: ann), text: "other", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: "p-1")
        #expect(again.post.postId == created.post.postId)
        #expect(live.changes.count == 1)
    }

    @Test func strangersAndNonFollowersOfAProtectedAuthorSeeNothing() async throws {
        let db = EngineTestDatabase.shared
        let (ann, fay, sam) = (try await db.user("ann"), try await db.user("fay"), try await db.user("sam"))
        try await giveHandle(ann, protected: true)
        try await giveHandle(fay)
        try await giveHandle(sam)
        try await serviceFollow(fay, ann)
        let posts = try postService(live, clock: clock)
        let post = try await posts.create(
            Caller(userId: ann), text: "for followers", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil)
        let id = post.post.postId
        // Sam does not follow Ann: the post does not exist for Sam, whatever Sam tries.
        let stranger = Caller(userId: sam)
        await #expect(throws: PostError.noSuchPost) { _ = try await posts.post(id, viewer: sam) }
        await #expect(throws: PostError.noSuchPost) { _ = try await posts.setLike(stranger, postId: id, liked: true) }
        await #expect(throws: PostError.noSuchPost) { _ = try await posts.repost(stranger, postId: id) }
        await #expect(throws: PostError.noSuchPost) {
            _ = try await posts.likers(postId: id, viewer: sam, before: nil, limit: nil)
        }
        await #expect(throws: PostError.noSuchPost) {
            _ = try await posts.create(
                stranger, text: "re", replyTo: id, voiceClipId: nil, photoIds: nil, clientId: nil)
        }
        await #expect(throws: PostError.noSuchPost) { try await posts.delete(stranger, postId: id) }
        // Fay follows: she reads it, may not repost it (protected) nor delete it (not hers).
        #expect(try await posts.post(id, viewer: fay).post.postId == id)
        await #expect(throws: PostError.protectedRepost) { _ = try await posts.repost(Caller(userId: fay), postId: id) }
        await #expect(throws: PostError.notAuthor) { try await posts.delete(Caller(userId: fay), postId: id) }
        // The author deletes it: live pages hear of the deletion, and it is gone for everyone.
        live.clear()
        try await posts.delete(Caller(userId: ann), postId: id)
        #expect(live.changes.count == 1)
        #expect(live.changes.first?.hasPrefix("postDeleted(postId: \(id), authorId: \(ann)") == true)
        await #expect(throws: PostError.noSuchPost) { _ = try await posts.post(id, viewer: ann) }
    }

    @Test func likesCountExactlyAndTellLivePagesTheCountsAndTheNotification() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        try await giveHandle(ann)
        try await giveHandle(bob)
        let posts = try postService(live, clock: clock)
        let id = try await posts.create(
            Caller(userId: ann), text: "like me", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil
        ).post.postId
        live.clear()
        let liked = try await posts.setLike(Caller(userId: bob), postId: id, liked: true)
        #expect(liked == PostLikeResult(postId: id, likeCount: 1, liked: true))
        #expect(live.changes.count == 2)
        #expect(live.changes.first == "counts(postId: \(id))")
        #expect(live.changes.last?.hasPrefix("notified(userId: \(ann), notificationId: ") == true)
        // Liking again changes nothing and tells nobody; unliking counts down.
        live.clear()
        #expect(try await posts.setLike(Caller(userId: bob), postId: id, liked: true).likeCount == 1)
        #expect(live.changes.isEmpty)
        #expect(try await posts.setLike(Caller(userId: bob), postId: id, liked: false).likeCount == 0)
        #expect(live.changes == ["counts(postId: \(id))"])
        clock.advance(by: 1)
        _ = try await posts.setLike(Caller(userId: bob), postId: id, liked: true)
        let likers = try await posts.likers(postId: id, viewer: ann, before: nil, limit: 1)
        #expect(likers.users.map(\.userId) == [bob])
        await #expect(throws: PostError.pageLimit(max: 100)) {
            _ = try await posts.likers(postId: id, viewer: ann, before: nil, limit: 101)
        }
        // A repost's likes are its original's.
        let repost = try await posts.repost(Caller(userId: bob), postId: id)
        #expect(repost.post.repostOf?.postId == id)
        #expect(try await posts.setLike(Caller(userId: ann), postId: repost.post.postId, liked: true).postId == id)
    }

    @Test func theBucketsRefillOnTheClock() async throws {
        let db = EngineTestDatabase.shared
        let ann = try await db.user("ann")
        try await giveHandle(ann)
        let posts = try postService(live, clock: clock)
        let me = Caller(userId: ann)
        for n in 0..<2 {
            _ = try await posts.create(me, text: "n\(n)", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil)
        }
        let refused = await thrown(PostError.self) {
            _ = try await posts.create(me, text: "n2", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil)
        }
        guard case .rateLimited(let bucket, let retryAfter) = refused else {
            Issue.record("a third post within the burst: \(String(describing: refused))")
            return
        }
        #expect(bucket == "posts")
        #expect(retryAfter > 9_000 && retryAfter <= 10_000)
        #expect(refused?.wire.extra["retry_after_ms"] == retryAfter)
        clock.advance(by: 10)
        _ = try await posts.create(me, text: "n2", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil)
        // Reposts have their own bucket, unreposts count in it too.
        let bob = try await db.user("bob")
        try await giveHandle(bob)
        let id = try await posts.create(
            Caller(userId: bob), text: "b", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil
        ).post.postId
        _ = try await posts.repost(me, postId: id)
        try await posts.unrepost(me, postId: id)
        let third = await thrown(PostError.self) { _ = try await posts.repost(me, postId: id) }
        guard case .rateLimited(let repostBucket, _) = third else {
            Issue.record("a third repost within the burst: \(String(describing: third))")
            return
        }
        #expect(repostBucket == "reposts")
        clock.advance(by: 10)
        #expect(try await posts.repost(me, postId: id).post.repostOf?.postId == id)
    }
}
