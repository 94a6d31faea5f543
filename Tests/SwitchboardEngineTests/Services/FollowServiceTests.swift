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

/// `FollowService` without sockets: follows, requests, lists, blocks and mutes against the test database; who hears
/// which event (`follow.changed` the follower, `relationship.changed` the acting user), what live pages are told,
/// the follow bucket on a manual clock and the most follows one may have.
@Suite("Follow service (the test database, a manual clock)")
struct FollowServiceTests {
    let clock = ManualClock()
    let live = RecordingPublisher()

    /// Follows: 3 at once, then one every 20 s; at most `maxFollowing`.
    func service(maxFollowing: Int = 10) throws -> FollowService {
        var limits = SocialGraphConfiguration()
        limits.followBurst = 3
        limits.followRefillSeconds = 20
        limits.maxFollowing = maxFollowing
        return FollowService(db: try EngineTestDatabase.shared.pool, limits: limits, live: live, clock: clock)
    }

    @Test func aFollowTellsTheFollowerAndLivePagesOnceAndNeedsAHandle() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        let follows = try service()
        let me = Caller(userId: ann)
        await #expect(throws: FollowError.followYourself) { _ = try await follows.follow(me, userId: ann) }
        await #expect(throws: FollowError.handleRequired) { _ = try await follows.follow(me, userId: bob) }
        try await giveHandle(ann)
        await #expect(throws: FollowError.noSuchUser) { _ = try await follows.follow(me, userId: bob) }
        await #expect(throws: FollowError.noSuchUser) { _ = try await follows.follow(me, userId: 999_999_999) }
        try await giveHandle(bob)
        clock.advance(by: 60)
        let (followed, events) = try await follows.follow(me, userId: bob)
        #expect(followed.state == "active")
        #expect(followed.profile.userId == bob)
        #expect(events.map(\.name) == ["follow.changed"])
        #expect(events.first?.users == [ann])
        #expect((events.first?.event as? SocialGraphEvents.FollowChanged)?.state == "active")
        #expect(live.changes.first == "followChanged(followerId: \(ann), followeeId: \(bob), active: true)")
        #expect(live.changes.last?.hasPrefix("notified(userId: \(bob), notificationId: ") == true)
        // Again: the existing follow, nobody told.
        live.clear()
        let (again, none) = try await follows.follow(me, userId: bob)
        #expect(again.state == "active")
        #expect(none.isEmpty && live.changes.isEmpty)
        // Unfollowing ends an active follow: the follower and live pages hear of it.
        let ended = try await follows.unfollow(me, userId: bob)
        #expect(ended.map(\.users) == [[ann]])
        #expect((ended.first?.event as? SocialGraphEvents.FollowChanged)?.state == "none")
        #expect(live.changes == ["followChanged(followerId: \(ann), followeeId: \(bob), active: false)"])
        clock.advance(by: 20)
        #expect(try await follows.unfollow(me, userId: bob).isEmpty)
    }

    @Test func aProtectedAccountDecidesWhoFollowsItAndKeepsItsListsForThem() async throws {
        let db = EngineTestDatabase.shared
        let (ann, fay, sam) = (try await db.user("ann"), try await db.user("fay"), try await db.user("sam"))
        try await giveHandle(ann, protected: true)
        try await giveHandle(fay)
        try await giveHandle(sam)
        let follows = try service()
        let (asked, events) = try await follows.follow(Caller(userId: fay), userId: ann)
        #expect(asked.state == "pending")
        #expect((events.first?.event as? SocialGraphEvents.FollowChanged)?.state == "pending")
        // A pending request is no active follow: live pages' indexes are not told, only the notification.
        #expect(live.changes.count == 1 && live.changes.first?.hasPrefix("notified(userId: \(ann)") == true)
        let requests = try await follows.requests(user: ann, before: nil, limit: nil)
        #expect(requests.requests.map(\.user.userId) == [fay])
        // Sam is no follower: the lists of a protected account are not Sam's to read.
        await #expect(throws: FollowError.protectedAccount) {
            _ = try await follows.list(viewer: sam, userId: ann, before: nil, limit: nil, followers: true)
        }
        await #expect(throws: FollowError.noPendingRequest) {
            _ = try await follows.approve(Caller(userId: ann), requester: sam)
        }
        let approved = try await follows.approve(Caller(userId: ann), requester: fay)
        #expect(approved.map(\.users) == [[fay]])
        #expect((approved.first?.event as? SocialGraphEvents.FollowChanged)?.state == "active")
        let followers = try await follows.list(viewer: fay, userId: ann, before: nil, limit: nil, followers: true)
        #expect(followers.users.map(\.userId) == [fay])
        await #expect(throws: FollowError.noPendingRequest) {
            _ = try await follows.deny(Caller(userId: ann), requester: fay)
        }
        let removed = try await follows.removeFollower(Caller(userId: ann), userId: fay)
        #expect(removed.map(\.users) == [[fay]])
        await #expect(throws: FollowError.notAFollower) {
            _ = try await follows.removeFollower(Caller(userId: ann), userId: fay)
        }
        // A user without a handle has no lists for others; page sizes are bounded.
        let plain = try await db.user("plain")
        await #expect(throws: FollowError.noSuchUser) {
            _ = try await follows.list(viewer: sam, userId: plain, before: nil, limit: nil, followers: false)
        }
        await #expect(throws: FollowError.pageLimit(max: 100)) {
            _ = try await follows.list(viewer: sam, userId: nil, before: nil, limit: 0, followers: false)
        }
    }

    @Test func aBlockEndsFollowsBothWaysAndMutesAreSilent() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        try await giveHandle(ann)
        try await giveHandle(bob)
        let follows = try service()
        _ = try await follows.follow(Caller(userId: ann), userId: bob)
        _ = try await follows.follow(Caller(userId: bob), userId: ann)
        live.clear()
        await #expect(throws: FollowError.blockYourself) {
            _ = try await follows.block(Caller(userId: ann), userId: ann)
        }
        await #expect(throws: FollowError.noSuchUser) {
            _ = try await follows.block(Caller(userId: ann), userId: 999_999_999)
        }
        let blocked = try await follows.block(Caller(userId: ann), userId: bob)
        // Each ended follow's follower, then the blocker: relationship.changed.
        #expect(blocked.map(\.name).sorted() == ["follow.changed", "follow.changed", "relationship.changed"])
        #expect(Set(blocked.filter { $0.name == "follow.changed" }.flatMap(\.users)) == [ann, bob])
        let relationship = try #require(blocked.last?.event as? SocialGraphEvents.RelationshipChanged)
        #expect(blocked.last?.users == [ann])
        #expect(relationship == SocialGraphEvents.RelationshipChanged(userId: bob, blocking: true, muting: false))
        #expect(live.changes.contains("blockChanged(blockerId: \(ann), blockedId: \(bob), blocked: true)"))
        // Blocked: Bob cannot follow Ann again, and Ann's lists are not his.
        clock.advance(by: 60)
        await #expect(throws: FollowError.noSuchUser) { _ = try await follows.follow(Caller(userId: bob), userId: ann) }
        await #expect(throws: FollowError.noSuchUser) {
            _ = try await follows.list(viewer: bob, userId: ann, before: nil, limit: nil, followers: true)
        }
        // A mute while blocking: silent, one-way; the relationship says both.
        live.clear()
        await #expect(throws: FollowError.muteYourself) {
            _ = try await follows.setMute(Caller(userId: ann), userId: ann, on: true)
        }
        let muted = try await follows.setMute(Caller(userId: ann), userId: bob, on: true)
        #expect(muted.map(\.users) == [[ann]])
        #expect(
            muted.first?.event as? SocialGraphEvents.RelationshipChanged
                == SocialGraphEvents.RelationshipChanged(userId: bob, blocking: true, muting: true))
        #expect(live.changes == ["muteChanged(muterId: \(ann), mutedId: \(bob), muted: true)"])
        #expect(
            try await follows.blocksOrMutes(user: ann, mutes: true, before: nil, limit: nil).users.map(\.userId) == [
                bob
            ])
        let unblocked = try await follows.unblock(Caller(userId: ann), userId: bob)
        #expect(
            unblocked.first?.event as? SocialGraphEvents.RelationshipChanged
                == SocialGraphEvents.RelationshipChanged(userId: bob, blocking: false, muting: true))
        #expect(try await follows.blocksOrMutes(user: ann, mutes: false, before: nil, limit: nil).users.isEmpty)
    }

    @Test func theFollowBucketRefillsOnTheClockAndFollowsAreBounded() async throws {
        let db = EngineTestDatabase.shared
        let ann = try await db.user("ann")
        try await giveHandle(ann)
        var others: [Int64] = []
        for n in 0..<4 {
            let user = try await db.user("u\(n)")
            try await giveHandle(user)
            others.append(user)
        }
        let follows = try service(maxFollowing: 3)
        let me = Caller(userId: ann)
        for user in others.prefix(3) { _ = try await follows.follow(me, userId: user) }
        let refused = await thrown(FollowError.self) { _ = try await follows.follow(me, userId: others[3]) }
        guard case .rateLimited(let retryAfter) = refused else {
            Issue.record("a fourth follow within the burst: \(String(describing: refused))")
            return
        }
        #expect(retryAfter > 19_000 && retryAfter <= 20_000)
        clock.advance(by: 20)
        await #expect(throws: FollowError.tooManyFollowing(max: 3)) {
            _ = try await follows.follow(me, userId: others[3])
        }
    }
}
