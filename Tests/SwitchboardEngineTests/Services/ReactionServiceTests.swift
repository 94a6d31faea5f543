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

/// `ReactionService` without sockets: the emoji rule and the bucket before the database, visibility, who hears
/// `message.reaction`, and changes that change nothing.
@Suite("Reaction service (the test database, a manual clock)")
struct ReactionServiceTests {
    let clock = ManualClock()

    /// A service with a burst of 3 reactions, then one a second.
    func service() throws -> ReactionService {
        ReactionService(db: try EngineTestDatabase.shared.pool, burst: 3, perSecond: 1, clock: clock)
    }

    /// A text message of `sender`'s in the direct conversation of `sender` and `other`: (conversation, message).
    func message(from sender: Int64, to other: Int64, deleted: Bool = false) async throws -> (Int64, Int64) {
        try await EngineTestDatabase.shared.pool.withConnection { db in
            let conversation = try MessageStore.directConversation(db, sender, other)
            let seq =
                try db.execute(
                    cached: "UPDATE conversations SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq",
                    [.int(conversation)]
                ).decodeFirst(Int64.self) ?? 1
            guard
                let id = try db.execute(
                    cached: """
                        INSERT INTO messages (conversation_id, seq, sender_id, kind, body, deleted_at)
                        VALUES ($1, $2, $3, 'text', 'hello', CASE WHEN $4::boolean THEN now() END) RETURNING id
                        """, [.int(conversation), .int(seq), .int(sender), .bool(deleted)]
                ).decodeFirst(Int64.self)
            else { throw EngineTestError.noRow }
            return (conversation, id)
        }
    }

    @Test func aReactionIsToldToTheMembersOnceAndStrangersSeeNoMessage() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        let (conversation, id) = try await message(from: ann, to: bob)
        let reactions = try service()
        let (set, events) = try await reactions.set(Caller(userId: bob), messageId: id, emoji: "👍", active: nil)
        #expect(set.conversationId == conversation && set.messageId == id)
        #expect(set.reactions.map(\.emoji) == ["👍"] && set.reactions.first?.count == 1)
        #expect(events.map(\.name) == ["message.reaction"])
        #expect(Set(try #require(events.first).users) == [ann, bob])
        let event = try #require(events.first?.event as? MessageReactionEvent)
        #expect(event.userId == bob && event.emoji == "👍" && event.reactions.first?.mine == nil)
        // The same emoji again changes nothing and tells nobody.
        let (_, none) = try await reactions.set(Caller(userId: bob), messageId: id, emoji: "👍", active: true)
        #expect(none.isEmpty)
        await #expect(throws: ReactionError.noSuchMessage) {
            _ = try await reactions.set(Caller(userId: zed), messageId: id, emoji: "👍", active: nil)
        }
        await #expect(throws: ReactionError.noSuchMessage) {
            _ = try await reactions.set(Caller(userId: ann), messageId: -1, emoji: "👍", active: nil)
        }
        // Removing: the event carries no emoji and the counts without it.
        clock.advance(by: 5)
        let (removed, told) = try await reactions.set(Caller(userId: bob), messageId: id, emoji: "", active: false)
        #expect(removed.reactions.isEmpty)
        let gone = try #require(told.first?.event as? MessageReactionEvent)
        #expect(gone.emoji == nil && gone.reactions.isEmpty)
    }

    @Test func theRulesAndTheBucketComeBeforeTheDatabase() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        let (_, deleted) = try await message(from: ann, to: bob, deleted: true)
        let reactions = try service()
        let me = Caller(userId: ann)
        await #expect(throws: ReactionError.self) {
            _ = try await reactions.set(me, messageId: deleted, emoji: String(repeating: "👍", count: 9), active: nil)
        }
        #expect(ReactionError.invalidText("x").wire.code == .badRequest)
        await #expect(throws: ReactionError.messageDeleted) {
            _ = try await reactions.set(me, messageId: deleted, emoji: "👍", active: nil)
        }
        // Two more attempts spend the burst of 3 (the refused emoji cost nothing).
        _ = try? await reactions.set(me, messageId: deleted, emoji: "👍", active: nil)
        _ = try? await reactions.set(me, messageId: deleted, emoji: "👍", active: nil)
        do {
            _ = try await reactions.set(me, messageId: deleted, emoji: "👍", active: nil)
            Issue.record("a reaction beyond the burst was accepted")
        } catch {
            guard case .rateLimited(let retryAfter) = error else { throw error }
            #expect(retryAfter > 0 && retryAfter <= 1_000)
            #expect(error.wire.message == "too many reactions")
        }
        clock.advance(by: 1)
        await #expect(throws: ReactionError.messageDeleted) {
            _ = try await reactions.set(me, messageId: deleted, emoji: "👍", active: nil)
        }
    }
}
