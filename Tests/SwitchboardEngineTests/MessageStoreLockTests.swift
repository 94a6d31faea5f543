//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardStore
import Testing

/// `MessageStore.lockHeads`'s statement in each of its shapes (one or many conversations, none, one or many senders)
/// on the real database. The ops fuzz found the shape "many conversations, one sender" failing with 42702 (the
/// sender's sub-select column was also called `id`, so `ORDER BY id` was ambiguous): a writer's batch with one
/// person's messages to two conversations answered `internal`.
@Suite("Message store: locking the heads (the test database)")
struct MessageStoreLockTests {
    @Test func everyShapeLocksTheHeadsAndReportsTheLiveSenders() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, cat) = (try await db.user("Ann"), try await db.user("Bob"), try await db.user("Cat"))
        try await db.befriend(ann, bob)
        try await db.befriend(ann, cat)
        try await db.run("UPDATE users SET deleted_at = now() WHERE id = $1", cat)
        let (first, second) = try await db.pool.withConnection { c in
            (try MessageStore.directConversation(c, ann, bob), try MessageStore.directConversation(c, ann, cat))
        }
        let both = [first, second].sorted()
        let missing = Int64.max - 1
        for (ids, senders, live) in [
            ([first], [Int64](), Set<Int64>()),
            ([first], [ann], [ann]),
            ([first], [cat], []),
            ([first], [ann, bob, cat], [ann, bob]),
            (both, [], []),
            (both, [ann], [ann]),
            (both, [ann, cat], [ann]),
            (both + [missing], [bob], [bob]),
            ([missing], [ann], []),
        ] as [([Int64], [Int64], Set<Int64>)] {
            let (heads, liveSenders) = try await db.pool.transaction { c in
                try MessageStore.lockHeads(c, ids: ids, senders: senders)
            }
            #expect(Set(heads.keys) == Set(ids.filter { $0 != missing }), "ids \(ids), senders \(senders)")
            #expect(liveSenders == live, "ids \(ids), senders \(senders)")
        }
    }
}
