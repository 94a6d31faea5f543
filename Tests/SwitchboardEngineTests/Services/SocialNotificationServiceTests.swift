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

/// `SocialNotificationService` without sockets: the page's rules, grouping, the unread count and who hears that
/// notifications were read.
@Suite("Social notification service (the test database)")
struct SocialNotificationServiceTests {
    @Test func likesOfOnePostGroupAndReadingTellsOnlyTheReader() async throws {
        let db = EngineTestDatabase.shared
        let ann = try await db.user("ann")
        try await giveHandle(ann)
        let live = RecordingPublisher()
        let posts = try postService(live, clock: ManualClock())
        let post = try await posts.create(
            Caller(userId: ann), text: "like it", replyTo: nil, voiceClipId: nil, photoIds: nil, clientId: nil
        ).post.postId
        var likers: [Int64] = []
        for n in 0..<4 {
            let user = try await db.user("liker\(n)")
            try await giveHandle(user)
            _ = try await posts.setLike(Caller(userId: user), postId: post, liked: true)
            likers.append(user)
        }
        let notifications = SocialNotificationService(db: try db.pool)
        await #expect(throws: SocialNotificationError.pageLimit(max: 50)) {
            _ = try await notifications.list(user: ann, before: nil, limit: 51)
        }
        await #expect(throws: SocialNotificationError.badBefore) {
            _ = try await notifications.list(user: ann, before: 0, limit: nil)
        }
        await #expect(throws: SocialNotificationError.badUpTo) {
            _ = try await notifications.markRead(user: ann, upTo: -1)
        }
        let page = try await notifications.list(user: ann, before: nil, limit: nil)
        #expect(page.groups.count == 1)
        let group = try #require(page.groups.first)
        #expect(group.kind == "like")
        #expect(group.post?.postId == post)
        #expect(group.actorCount == 4)
        // The three newest actors, newest first.
        #expect(group.actors.map(\.userId) == likers.reversed().prefix(3).map { $0 })
        #expect(group.unread)
        #expect(page.unread == 4)
        #expect(page.nextBefore == nil)
        #expect(try await notifications.unread(user: ann).unread == 4)
        let (read, events) = try await notifications.markRead(user: ann, upTo: nil)
        #expect(read.unread == 0)
        #expect(events.map(\.name) == ["notifications.read"])
        #expect(events.first?.users == [ann])
        #expect((events.first?.event as? SocialNotificationsReadEvent)?.readId == group.newestId)
    }
}
