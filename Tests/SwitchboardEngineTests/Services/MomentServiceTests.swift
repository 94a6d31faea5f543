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

/// A stored photo of `owner`'s, made in SQL (uploads are the photo pipeline's subject).
func servicePhoto(owner: Int64) async throws -> Int64 {
    let sha = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    return try await EngineTestDatabase.shared.pool.withConnection { db in
        guard
            let id = try db.execute(
                cached: """
                    INSERT INTO photos (owner_id, sha256, format, width, height, color, has_alpha)
                    VALUES ($1, decode($2, 'hex'), 'jpeg', 4032, 3024, '#a3b1c2', false) RETURNING id
                    """, [.int(owner), .text(sha)]
            ).decodeFirst(Int64.self)
        else { throw EngineTestError.noRow }
        return id
    }
}

/// `MomentService` without sockets: its rules, transactions and events against the test database, its rate limits
/// on a manual clock.
@Suite("Moment service (the test database, a manual clock)")
struct MomentServiceTests {
    let clock = ManualClock()

    /// A service with small buckets: 2 moments, then one every 10 s; 3 likes, then one a second.
    func service(maxPhotos: Int = 3) throws -> MomentService {
        var limits = MomentConfiguration()
        limits.maxPhotos = maxPhotos
        limits.captionMax = 20
        return MomentService(
            db: try EngineTestDatabase.shared.pool, limits: limits,
            posting: SharedRateLimiter(capacity: 2, refillPerSecond: 0.1),
            liking: SharedRateLimiter(capacity: 3, refillPerSecond: 1),
            clientIdRule: MessagingConfiguration().clientIdRule, clock: clock)
    }

    @Test func aMomentIsToldToTheOwnersFriendsOnceAndAResendIsTheStoredOne() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        try await db.befriend(ann, bob)
        let photo = try await servicePhoto(owner: ann)
        let moments = try service()
        let (created, events) = try await moments.create(
            Caller(userId: ann), photoIds: [photo], caption: "  the lake  ", clientId: "m-1")
        #expect(created.moment.caption == "the lake")
        #expect(created.moment.photos.map(\.photoId) == [photo])
        #expect(events.count == 1)
        let told = try #require(events.first)
        // The owner's other devices and the friends.
        #expect(Set(told.users) == [ann, bob])
        #expect(told.name == "moment.created")
        #expect((told.event as? MomentEvents.Created)?.moment.momentId == created.moment.momentId)
        #expect(!told.users.contains(zed))
        // The same client id again: the stored moment, nobody told twice.
        let (again, none) = try await moments.create(
            Caller(userId: ann), photoIds: [photo], caption: "x", clientId: "m-1")
        #expect(again.moment.momentId == created.moment.momentId)
        #expect(none.isEmpty)
    }

    @Test func theRulesComeBeforeTheDatabase() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        let mine = try await servicePhoto(owner: ann)
        let bobs = try await servicePhoto(owner: bob)
        let moments = try service(maxPhotos: 2)
        let me = Caller(userId: ann)
        await #expect(throws: MomentError.photoCount(max: 2)) {
            _ = try await moments.create(me, photoIds: [], caption: nil, clientId: nil)
        }
        await #expect(throws: MomentError.photoCount(max: 2)) {
            _ = try await moments.create(me, photoIds: [1, 2, 3], caption: nil, clientId: nil)
        }
        await #expect(throws: MomentError.captionTooLong(max: 20)) {
            _ = try await moments.create(
                me, photoIds: [mine], caption: String(repeating: "a", count: 21), clientId: nil)
        }
        await #expect(throws: MomentError.duplicatePhotos) {
            _ = try await moments.create(me, photoIds: [mine, mine], caption: nil, clientId: nil)
        }
        // Someone else's photo is no photo of the caller's.
        await #expect(throws: MomentError.noSuchPhoto) {
            _ = try await moments.create(me, photoIds: [bobs], caption: nil, clientId: nil)
        }
        let error = MomentError.invalidText("client_id must not contain U+0000")
        #expect(error.wire.code == .badRequest)
        await #expect(throws: MomentError.self) {
            _ = try await moments.create(me, photoIds: [mine], caption: nil, clientId: "a\u{0}b")
        }
    }

    @Test func strangersSeeNothingAndLikesCountExactlyOnce() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        try await db.befriend(ann, bob)
        let moments = try service()
        let (created, _) = try await moments.create(
            Caller(userId: ann), photoIds: [try await servicePhoto(owner: ann)], caption: nil, clientId: nil)
        let id = created.moment.momentId
        await #expect(throws: MomentError.notFound) { _ = try await moments.moment(id, viewer: zed) }
        await #expect(throws: MomentError.notFound) {
            _ = try await moments.setLike(Caller(userId: zed), momentId: id, liked: true)
        }
        let (liked, events) = try await moments.setLike(Caller(userId: bob), momentId: id, liked: true)
        #expect(liked.likeCount == 1)
        #expect(Set(try #require(events.first).users) == [ann, bob])
        // Liking again changes nothing and tells nobody.
        let (again, none) = try await moments.setLike(Caller(userId: bob), momentId: id, liked: true)
        #expect(again.likeCount == 1)
        #expect(none.isEmpty)
        let likers = try await moments.likers(momentId: id, viewer: ann, before: nil, limit: nil)
        #expect(likers.likers.map(\.userId) == [bob])
        await #expect(throws: MomentError.badLikersCursor) {
            _ = try await moments.likers(momentId: id, viewer: ann, before: "nonsense", limit: nil)
        }
        await #expect(throws: MomentError.pageLimit(max: 100)) {
            _ = try await moments.likers(momentId: id, viewer: ann, before: nil, limit: 101)
        }
        // Deleting tells the audience; the moment is gone for everyone.
        let deleted = try await moments.delete(Caller(userId: ann), momentId: id)
        #expect(deleted.map(\.name) == ["moment.deleted"])
        await #expect(throws: MomentError.notFound) { _ = try await moments.moment(id, viewer: ann) }
        await #expect(throws: MomentError.notFound) { _ = try await moments.delete(Caller(userId: ann), momentId: id) }
    }

    @Test func theBucketsRefillOnTheClock() async throws {
        let db = EngineTestDatabase.shared
        let ann = try await db.user("ann")
        let moments = try service()
        let me = Caller(userId: ann)
        for _ in 0..<2 {
            _ = try await moments.create(
                me, photoIds: [try await servicePhoto(owner: ann)], caption: nil, clientId: nil)
        }
        let photo = try await servicePhoto(owner: ann)
        do {
            _ = try await moments.create(me, photoIds: [photo], caption: nil, clientId: nil)
            Issue.record("a third moment within the burst was accepted")
        } catch {
            guard case .rateLimited(let bucket, let retryAfter) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(bucket == "posts")
            #expect(retryAfter > 9_000 && retryAfter <= 10_000)
        }
        clock.advance(by: 10)
        _ = try await moments.create(me, photoIds: [photo], caption: nil, clientId: nil)
    }
}
