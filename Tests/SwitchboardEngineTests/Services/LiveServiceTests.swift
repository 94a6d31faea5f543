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

/// `LiveService` without sockets: the streams' rules on the loop, each stream authorized like its page, and a
/// resume's replay read from one snapshot (the engine's index is `SocialLive`'s own subject, `SocialIndexTests`).
@Suite("Live service (the test database)")
struct LiveServiceTests {
    func service(maxSubscriptions: Int = 3) throws -> LiveService {
        var configuration = LiveConfiguration()
        configuration.maxSubscriptions = maxSubscriptions
        let pool = try EngineTestDatabase.shared.pool
        let live = SocialLive(
            configuration: configuration, pool: pool, outbox: LocalOutbox(), cluster: nil, logger: testLogger())
        return LiveService(db: pool, live: live)
    }

    @Test func streamsAreParsedAndBoundedBeforeAnyWork() throws {
        let live = try service(maxSubscriptions: 2)
        #expect(throws: LiveError.noStreams) { _ = try live.streams([]) }
        #expect(throws: LiveError.unknownStream("nope")) { _ = try live.streams(["home", "nope"]) }
        #expect(LiveError.unknownStream(String(repeating: "x", count: 100)).wire.message.count == 15 + 64)
        // Each stream once.
        #expect(try live.streams(["home", "home", "user:7"]) == [.home, .user(7)])
        #expect(throws: LiveError.tooManyStreams(max: 2)) {
            try live.check(try live.streams(["home", "notifications", "user:1"]), since: nil)
        }
        #expect(throws: LiveError.badSince) { try live.check([.home], since: -1) }
    }

    @Test func streamsAreAuthorizedLikeTheirPagesAndAResumeReadsWhatWasMissed() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, cat, sam) = (
            try await db.user("ann"), try await db.user("bob"), try await db.user("cat"), try await db.user("sam")
        )
        try await giveHandle(bob)
        try await giveHandle(cat, protected: true)
        try await giveHandle(sam)
        try await serviceFollow(ann, bob)
        let posts = try postService(RecordingPublisher(), clock: ManualClock())
        let cats = try await posts.create(
            Caller(userId: cat), text: "mine", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil
        ).post.postId
        try await serviceBlock(sam, ann)
        let live = try service()
        let connection = ConnectionID.next()
        await #expect(throws: LiveError.protectedPosts) {
            _ = try await live.subscribe(connection: connection, user: ann, streams: [.user(cat)], since: nil)
        }
        await #expect(throws: LiveError.noSuchUser) {
            _ = try await live.subscribe(connection: connection, user: ann, streams: [.user(sam)], since: nil)
        }
        await #expect(throws: LiveError.noSuchPost) {
            _ = try await live.subscribe(connection: connection, user: ann, streams: [.thread(cats)], since: nil)
        }
        // A resume from before Bob's post carries it (the connection is not attached here: nothing is registered,
        // the replay is read all the same).
        let start = try await live.subscribe(connection: connection, user: ann, streams: [.home], since: nil)
        #expect(start.clock == nil)
        let since = start.result.seq
        let id = try await posts.create(
            Caller(userId: bob), text: "missed", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil
        ).post.postId
        let resumed = try await live.subscribe(connection: connection, user: ann, streams: [.home], since: since)
        #expect(resumed.result.posts.map(\.postId) == [id])
        #expect(resumed.posts == [id])
        #expect(try #require(resumed.clock) >= since + 1)
        #expect(!resumed.result.resyncRequired)
    }
}
