//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Testing

@testable import SwitchboardServer

/// The live pages' per-node index (`SocialIndex`) and its bus format (`SocialRouted`), without sockets.
@Suite struct SocialIndexTests {
    private static func c(_ n: UInt64) -> ConnectionID { ConnectionID(rawValue: n) }

    private static func post(
        _ id: Int64, by author: Int64, protected: Bool = false, root: Int64? = nil, replyTo: Int64? = nil,
        original: Int64? = nil
    )
        -> SocialRouted
    {
        .post(
            LivePostRoute(
                postId: id, seq: id, authorId: author, authorProtected: protected, threadRoot: root,
                replyToUser: replyTo, originalAuthor: original),
            event: [])
    }

    @Test func routesByHomePageAndThreadOncePerConnectionWithTheHomeRules() {
        var index = SocialIndex()
        let v = index.graphVersion
        // User 1 follows 2 and 3, mutes 4, blocked by 5; connection 10 has home and 2's page, 11 home.
        let r1 = SocialLiveRepository.Relations(followees: [2, 3, 4], muted: [4], blocked: [5])
        #expect(
            index.add(
                Self.c(10), user: 1, streams: [(.home, 1, 1), (.user(2), 2, 2)], relations: r1, readAt: v, limit: 16)
                == .success(["home", "user:2"]))
        #expect(
            index.add(Self.c(11), user: 1, streams: [(.home, 1, 1)], relations: nil, readAt: v, limit: 16)
                == .success(["home"]))
        // User 6 (no follows) reads thread 100 and 2's page.
        #expect(
            index.add(
                Self.c(20), user: 6, streams: [(.thread(100), 100, 2), (.user(2), 2, 2)], relations: .init(), readAt: v,
                limit: 16) != .failure(.tooMany))

        #expect(index.recipients(Self.post(1, by: 2)) == [Self.c(10), Self.c(11), Self.c(20)])
        #expect(index.recipients(Self.post(2, by: 4)).isEmpty, "muted author")
        #expect(index.recipients(Self.post(3, by: 3, original: 4)).isEmpty, "repost of a muted user's post")
        #expect(index.recipients(Self.post(4, by: 3, replyTo: 7)).isEmpty, "a reply to someone user 1 does not follow")
        #expect(index.recipients(Self.post(5, by: 3, replyTo: 2)) == [Self.c(10), Self.c(11)])
        #expect(index.recipients(Self.post(6, by: 1)) == [Self.c(10), Self.c(11)], "own posts")
        #expect(index.recipients(Self.post(7, by: 8, root: 100)) == [Self.c(20)], "a thread's reply")
        #expect(index.recipients(Self.post(8, by: 8, protected: true, root: 100)).isEmpty, "protected, not followed")
        #expect(index.recipients(Self.post(9, by: 5, root: 100)) == [Self.c(20)])

        // Unfollow 2: home no longer, the page stays (public).
        index.apply(.follow(followerId: 1, followeeId: 2, active: false))
        #expect(index.recipients(Self.post(10, by: 2)) == [Self.c(10), Self.c(20)])
        // A block removes the page subscription at once.
        index.apply(.block(blockerId: 2, blockedId: 1, active: true))
        #expect(index.recipients(Self.post(11, by: 2)) == [Self.c(20)])
        #expect(index.streams(of: Self.c(10)) == ["home"])
        // A connection closing removes everything; the user's state goes with its last connection.
        index.remove(Self.c(10))
        index.remove(Self.c(11))
        #expect(!index.knows(1))
        #expect(index.recipients(Self.post(12, by: 3)).isEmpty)
    }

    @Test func limitsAndStaleRelationsAreRefused() {
        var index = SocialIndex()
        let v = index.graphVersion
        #expect(
            index.add(Self.c(1), user: 1, streams: [(.home, 1, 1)], relations: nil, readAt: v, limit: 2)
                == .failure(.relationsNeeded))
        index.apply(.mute(muterId: 9, mutedId: 8, active: true))
        #expect(
            index.add(Self.c(1), user: 1, streams: [(.home, 1, 1)], relations: .init(), readAt: v, limit: 2)
                == .failure(.relationsNeeded))
        #expect(
            index.add(Self.c(1), user: 1, streams: [(.home, 1, 1)], relations: .init(), readAt: nil, limit: 2)
                == .success(["home"]))
        #expect(
            index.add(
                Self.c(1), user: 1, streams: [(.notifications, 1, 1), (.user(3), 3, 3)], relations: nil, readAt: v,
                limit: 2) == .failure(.tooMany))
        #expect(
            index.add(
                Self.c(1), user: 1, streams: [(.home, 1, 1), (.notifications, 1, 1)], relations: nil, readAt: v,
                limit: 2) == .success(["home", "notifications"]))
        #expect(index.recipients(.notification(userId: 1, event: [])) == [Self.c(1)])
        #expect(index.recipients(.profileCounts(userId: 1, event: [])) == [Self.c(1)])
    }

    @Test func theBusFormatRoundTripsAndRefusesMalformedBytes() {
        let items: [SocialRouted] = [
            Self.post(1, by: 2, protected: true, root: 3, replyTo: 4, original: nil),
            .deleted(postId: 5, seq: 6, authorId: 7, threadRoot: nil, event: Array("{}".utf8)),
            .counts(postId: 8, authorId: 9, authorProtected: false, threadKey: 8, event: [1, 2, 3]),
            .photos(postId: 10, authorId: 9, authorProtected: true, threadKey: 3, reposters: [11, 12], event: [6]),
            .profileCounts(userId: 1, event: [4]), .notification(userId: 2, event: [5]),
            .follow(followerId: 1, followeeId: 2, active: true), .block(blockerId: 3, blockedId: 4, active: false),
            .mute(muterId: 5, mutedId: 6, active: true),
        ]
        let bytes = SocialRouted.encode(items)
        #expect(SocialRouted.decode(bytes) == items)
        for cut in 0..<bytes.count { #expect(SocialRouted.decode(Array(bytes[..<cut])) == nil) }
        #expect(SocialRouted.decode(bytes + [0]) == nil)
        let wire = ClusterWire.social(node: 3, payload: bytes)
        #expect(ClusterWire.decode(wire.encoded()) == wire)
    }
}
