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

/// The messaging rules of a writer's batch (`MessageBatch`), on a store in memory: no database.
@Suite struct MessageBatchTests {
    /// A store in memory.
    final class MemoryStore: MessageBatchStore {
        var states: [Int64: ConversationState] = [:]
        var friends: Set<FriendRepository.Pair> = []
        var messages: [ChatMessage] = []
        var deleted: Set<Int64> = []
        /// Deleted accounts (`lock(ids:senders:)` names those among the senders).
        var deletedAccounts: Set<Int64> = []
        /// The senders of every `lock(ids:senders:)`, in call order.
        var lockedSenders: [[Int64]] = []
        var readMarks: [(conversationId: Int64, userId: Int64, seq: Int64)] = []
        var lastSeqs: [Int64: Int64] = [:]
        var versions: [Int64: Int64] = [:]
        var loads = 0
        /// The ids of every `lock`, in call order.
        var locks: [[Int64]] = []
        /// Every store call's name, in order.
        var calls: [String] = []

        /// The row as the database would have it: `states` as set up, with what `advance` wrote over it.
        func head(_ id: Int64) -> ConversationHead? {
            states[id].map {
                ConversationHead(lastSeq: lastSeqs[id] ?? $0.lastSeq, version: versions[id] ?? $0.version)
            }
        }
        func lock(ids: [Int64]) throws -> [Int64: ConversationHead] {
            calls.append("lock")
            locks.append(ids)
            var heads: [Int64: ConversationHead] = [:]
            for id in ids { heads[id] = head(id) }
            return heads
        }
        func lock(
            ids: [Int64], senders: [Int64]
        ) throws -> (heads: [Int64: ConversationHead], deletedSenders: Set<Int64>) {
            lockedSenders.append(senders)
            return (try lock(ids: ids), deletedAccounts.intersection(senders))
        }
        func loadStates(ids: [Int64]) throws -> [Int64: ConversationState] {
            calls.append("load")
            loads += 1
            var out: [Int64: ConversationState] = [:]
            for id in ids {
                guard var state = states[id], let head = head(id) else { continue }
                state.lastSeq = head.lastSeq
                state.version = head.version
                out[id] = state
            }
            return out
        }
        func friendPairs(_ pairs: Set<FriendRepository.Pair>) throws -> Set<FriendRepository.Pair> {
            pairs.intersection(friends)
        }
        func existing(_ keys: [MessageStore.ClientKey]) throws -> [MessageStore.ClientKey: ChatMessage] {
            calls.append("existing")
            var result: [MessageStore.ClientKey: ChatMessage] = [:]
            for m in messages {
                guard let s = m.senderId, let c = m.clientId else { continue }
                let key = MessageStore.ClientKey(conversationId: m.conversationId, senderId: s, clientId: c)
                if keys.contains(key) { result[key] = m }
            }
            return result
        }
        func messageInfo(messageId: Int64) throws -> (
            conversationId: Int64, seq: Int64, senderId: Int64?, kind: String, deleted: Bool
        )? {
            messages.first { $0.id == messageId }.map {
                ($0.conversationId, $0.seq, $0.senderId, $0.kind.rawValue, deleted.contains($0.id))
            }
        }
        func addMember(conversationId: Int64, userId: Int64, joinedSeq: Int64) throws {}
        func removeMember(conversationId: Int64, userId: Int64, leftSeq: Int64) throws {}
        func rename(conversationId: Int64, name: String) throws {}
        func markDeleted(messageId: Int64) throws { deleted.insert(messageId) }
        func insert(_ new: [NewMessage]) throws -> [ChatMessage] {
            // As the database's unique index on (conversation, sender, client id).
            for n in new where n.clientId != nil {
                if messages.contains(where: {
                    $0.conversationId == n.conversationId && $0.senderId == n.senderId && $0.clientId == n.clientId
                }) {
                    throw MessageBatch.StoredKeyConflict()
                }
            }
            let stored = new.enumerated().map { (i, n) in
                ChatMessage(
                    id: Int64(messages.count + i + 1), conversationId: n.conversationId, seq: n.seq,
                    senderId: n.senderId, kind: n.kind,
                    text: n.kind == .text ? n.body : nil, clientId: n.clientId, ts: "2026-01-01T00:00:00.000Z")
            }
            messages += stored
            return stored
        }
        func advance(heads: [Int64: ConversationHead]) throws -> Int64? {
            for (c, h) in heads {
                lastSeqs[c] = h.lastSeq
                versions[c] = h.version
            }
            return heads.isEmpty ? nil : 77
        }
        func markRead(_ marks: [(conversationId: Int64, userId: Int64, seq: Int64)]) throws { readMarks += marks }
    }

    static let ann: Int64 = 1, bob: Int64 = 2, cy: Int64 = 3, dee: Int64 = 4
    static let group: Int64 = 10, direct: Int64 = 20

    static func store() -> MemoryStore {
        let s = MemoryStore()
        s.states[group] = ConversationState(
            id: group, isGroup: true,
            members: [ann: MemberRange(joinedSeq: 0), bob: MemberRange(joinedSeq: 0), cy: MemberRange(joinedSeq: 0)],
            lastSeq: 1, name: "g")
        s.states[direct] = ConversationState(
            id: direct, isGroup: false, members: [ann: MemberRange(joinedSeq: 0), dee: MemberRange(joinedSeq: 0)],
            lastSeq: 0, name: nil)
        s.friends = [FriendRepository.Pair(ann, bob), FriendRepository.Pair(ann, cy)]
        return s
    }

    static func send(_ text: String, from actor: Int64, to c: Int64, clientId: String? = nil) -> ConversationWrite {
        ConversationWrite(
            conversationId: c, actor: actor, action: .send(kind: .text, body: text, clientId: clientId, voiceId: nil))
    }

    static func code(_ r: Result<ChatMessage, ServiceError>) -> ErrorCode? {
        if case .failure(let e) = r { e.code } else { nil }
    }

    @Test func seqsAreAssignedWithoutGapsAndSendersReadTheirOwn() throws {
        let store = Self.store()
        let out = try MessageBatch.run(
            [
                Self.send("a", from: Self.ann, to: Self.group), Self.send("b", from: Self.bob, to: Self.group),
                Self.send("c", from: Self.ann, to: Self.group),
            ],
            known: [:], maxGroupMembers: 10, store: store)
        #expect(out.results.compactMap { try? $0.get().seq } == [2, 3, 4])
        #expect(out.stored == [true, true, true])
        #expect(out.states[Self.group]?.lastSeq == 4)
        #expect(store.lastSeqs == [Self.group: 4])
        #expect(store.readMarks.map(\.seq) == [2, 3, 4])
        #expect(out.transactionId == 77)
        // A known state is used as is (not reloaded): the next batch continues from it.
        let loads = store.loads
        let next = try MessageBatch.run(
            [Self.send("d", from: Self.cy, to: Self.group)], known: out.states, maxGroupMembers: 10, store: store)
        #expect((try? next.results[0].get())?.seq == 5)
        #expect(store.loads == loads + 1)  // an empty load for nothing missing
    }

    /// Account deletion races (issue 37): the batch locks its senders' accounts with its conversations, and a
    /// deleted account's message is refused without taking a seq; the others' go on.
    @Test func aDeletedAccountsMessagesAreRefusedAndTakeNoSeq() throws {
        let store = Self.store()
        store.deletedAccounts = [Self.bob]
        let out = try MessageBatch.run(
            [
                Self.send("a", from: Self.ann, to: Self.group), Self.send("b", from: Self.bob, to: Self.group),
                Self.send("c", from: Self.ann, to: Self.group),
            ],
            known: [:], maxGroupMembers: 10, store: store)
        #expect(store.lockedSenders == [[Self.ann, Self.bob].sorted()])
        #expect(out.results.map { (try? $0.get())?.seq } == [2, nil, 3])
        if case .failure(let e) = out.results[1] { #expect(e == .accountDeleted) } else { Issue.record("stored") }
        #expect(ServiceError.accountDeleted.code == .notAuthenticated)
        #expect(out.stored == [true, false, true])
        #expect(store.messages.allSatisfy { $0.senderId != Self.bob })
    }

    @Test func aClientIdIsStoredOnce() throws {
        let store = Self.store()
        let first = try MessageBatch.run(
            [
                Self.send("x", from: Self.ann, to: Self.group, clientId: "k"),
                Self.send("x", from: Self.ann, to: Self.group, clientId: "k"),
            ],
            known: [:], maxGroupMembers: 10, store: store)
        #expect(first.stored == [true, false])
        #expect((try? first.results[0].get())?.id == (try? first.results[1].get())?.id)
        // Resent in a later batch: the stored message, not a new one; the seq does not move.
        let again = try MessageBatch.run(
            [Self.send("x", from: Self.ann, to: Self.group, clientId: "k")], known: first.states, maxGroupMembers: 10,
            store: store)
        #expect(again.stored == [false])
        #expect((try? again.results[0].get())?.seq == 2)
        #expect(again.states[Self.group]?.lastSeq == 2)
        #expect(again.transactionId == nil)
        // The same client id from another sender is another message.
        let other = try MessageBatch.run(
            [Self.send("x", from: Self.bob, to: Self.group, clientId: "k")], known: again.states, maxGroupMembers: 10,
            store: store)
        #expect((try? other.results[0].get())?.seq == 3)
    }

    /// The server's first try skips the look-up of client ids: a stored one conflicts in the insert, and the try
    /// with the look-up answers the resend with the stored message.
    @Test func withoutTheLookUpAStoredClientIdConflictsAndTheLookUpAnswersIt() throws {
        let store = Self.store()
        let first = try MessageBatch.run(
            [Self.send("x", from: Self.ann, to: Self.group, clientId: "k")], known: [:], maxGroupMembers: 10,
            store: store, lookUpKeys: false)
        #expect(first.stored == [true])
        #expect(!store.calls.contains("existing"))
        let resend = [
            Self.send("x", from: Self.ann, to: Self.group, clientId: "k"),
            Self.send("y", from: Self.bob, to: Self.group),
        ]
        #expect(throws: MessageBatch.StoredKeyConflict.self) {
            try MessageBatch.run(resend, known: first.states, maxGroupMembers: 10, store: store, lookUpKeys: false)
        }
        #expect(store.messages.count == 1)
        let again = try MessageBatch.run(
            resend, known: first.states, maxGroupMembers: 10, store: store, lookUpKeys: true)
        #expect(again.stored == [false, true])
        #expect((try? again.results[0].get())?.id == (try? first.results[0].get())?.id)
        #expect((try? again.results[1].get())?.seq == 3)
    }

    @Test func strangersAndNonFriendsAreRefused() throws {
        let store = Self.store()
        let out = try MessageBatch.run(
            [
                Self.send("in?", from: Self.dee, to: Self.group),  // not a member
                Self.send("hi", from: Self.ann, to: Self.direct),  // a direct conversation between non-friends
                Self.send("??", from: Self.ann, to: 999),  // no such conversation: answered as not a member
                Self.send("ok", from: Self.bob, to: Self.group),
            ], known: [:], maxGroupMembers: 10, store: store)
        #expect(out.results.map(Self.code) == [.notMember, .notFriends, .notMember, nil])
        #expect((try? out.results[3].get())?.seq == 2)  // refusals take no seq
        #expect(out.stored == [false, false, false, true])
    }

    @Test func groupMembershipRules() throws {
        let store = Self.store()
        store.friends.insert(FriendRepository.Pair(Self.ann, Self.dee))
        let add = { (actor: Int64, user: Int64, c: Int64) in
            ConversationWrite(conversationId: c, actor: actor, action: .add(userId: user))
        }
        let out = try MessageBatch.run(
            [
                add(Self.bob, Self.dee, Self.group),  // Bob and Dee are not friends
                add(Self.ann, Self.bob, Self.group),  // a member already
                add(Self.ann, Self.bob, Self.direct),  // not a group (and Ann is a member of it)
                add(Self.ann, Self.dee, Self.group),  // fine: seq 2
                ConversationWrite(conversationId: Self.group, actor: Self.cy, action: .leave),  // seq 3
                ConversationWrite(conversationId: Self.group, actor: Self.cy, action: .rename("no")),  // left already
            ], known: [:], maxGroupMembers: 10, store: store)
        #expect(out.results.map(Self.code) == [.notFriends, .badRequest, .badRequest, nil, nil, .notMember])
        let state = try #require(out.states[Self.group])
        #expect(state.lastSeq == 3)
        #expect(state.members[Self.dee] == MemberRange(joinedSeq: 1))
        #expect(state.members[Self.cy]?.leftSeq == 3)
        // A full group takes no one else.
        let full = try MessageBatch.run(
            [add(Self.ann, Self.bob, Self.group)], known: [:], maxGroupMembers: 3, store: Self.store())
        #expect(full.results.map(Self.code) == [.badRequest])
        let store2 = Self.store()
        store2.friends.insert(FriendRepository.Pair(Self.ann, Self.dee))
        let tooMany = try MessageBatch.run(
            [add(Self.ann, Self.dee, Self.group)], known: [:], maxGroupMembers: 3, store: store2)
        #expect(tooMany.results.map(Self.code) == [.tooMany])
    }

    @Test func onlyTheSenderDeletesAMessageItsMembersCanSee() throws {
        let store = Self.store()
        let sent = try MessageBatch.run(
            [Self.send("oops", from: Self.ann, to: Self.group)], known: [:], maxGroupMembers: 10, store: store)
        let id = try sent.results[0].get().id
        let delete = { (actor: Int64) in
            ConversationWrite(conversationId: Self.group, actor: actor, action: .delete(messageId: id))
        }
        let out = try MessageBatch.run(
            [delete(Self.bob), delete(Self.dee), delete(Self.ann)], known: sent.states, maxGroupMembers: 10,
            store: store)
        #expect(out.results.map(Self.code) == [.forbidden, .notFound, nil])
        #expect(store.deleted == [id])
        #expect((try? out.results[2].get())?.kind == .system)
        // Deleted once: a second deletion finds no such message.
        let twice = try MessageBatch.run([delete(Self.ann)], known: out.states, maxGroupMembers: 10, store: store)
        #expect(twice.results.map(Self.code) == [.notFound])
    }

    // MARK: several processes writing to one conversation (the row lock and the version)

    /// Another process's batch, as the database records it: its messages and the conversation's new head.
    static func otherProcess(
        _ store: MemoryStore, _ c: Int64, change: (inout ConversationState) -> Void = { _ in }, sends: Int
    ) {
        var state = store.states[c]!
        let before = store.head(c)!
        state.lastSeq = before.lastSeq
        state.version = before.version
        let old = state
        change(&state)
        if state != old { state.version += 1 }
        for _ in 0..<sends {
            state.lastSeq += 1
            _ = try? store.insert([
                NewMessage(
                    conversationId: c, seq: state.lastSeq, senderId: Self.bob, kind: .text, body: "x", clientId: nil)
            ])
        }
        store.states[c] = state
        store.lastSeqs[c] = state.lastSeq
        store.versions[c] = state.version
    }

    @Test func theLockComesFirstInIdOrderAndEverythingElseAfterIt() throws {
        let store = Self.store()
        store.friends.insert(FriendRepository.Pair(Self.ann, Self.dee))
        _ = try MessageBatch.run(
            [
                Self.send("d", from: Self.ann, to: Self.direct, clientId: "1"),
                Self.send("g", from: Self.ann, to: Self.group, clientId: "2"),
                Self.send("?", from: Self.ann, to: 999),
            ],
            known: [:], maxGroupMembers: 10, store: store)
        #expect(store.locks == [[Self.group, Self.direct, 999]])
        #expect(store.calls.first == "lock")
        #expect(store.calls.filter { $0 == "lock" }.count == 1)
        #expect(store.calls.firstIndex(of: "existing")! > store.calls.firstIndex(of: "lock")!)
    }

    @Test func seqsContinueFromTheLockedRowNotFromTheCache() throws {
        let store = Self.store()
        let first = try MessageBatch.run(
            [Self.send("a", from: Self.ann, to: Self.group)], known: [:], maxGroupMembers: 10, store: store)
        #expect(first.states[Self.group]?.lastSeq == 2)
        // Another process stores three messages (members unchanged): the cached state stays valid (no reload)
        // but its seq is old; the locked row's is used.
        Self.otherProcess(store, Self.group, sends: 3)
        let loads = store.loads
        let next = try MessageBatch.run(
            [Self.send("b", from: Self.cy, to: Self.group), Self.send("c", from: Self.ann, to: Self.group)],
            known: first.states,
            maxGroupMembers: 10, store: store)
        #expect(next.results.compactMap { try? $0.get().seq } == [6, 7])
        #expect(store.loads == loads + 1)  // an empty load: the cached members were current
        #expect(store.lastSeqs[Self.group] == 7)
        #expect(Set(store.messages.map(\.seq)).count == store.messages.count)
    }

    @Test func aCachedStateOfAnOlderVersionIsReloaded() throws {
        let store = Self.store()
        store.friends.insert(FriendRepository.Pair(Self.ann, Self.dee))
        let first = try MessageBatch.run(
            [Self.send("a", from: Self.ann, to: Self.group)], known: [:], maxGroupMembers: 10, store: store)
        // Another process adds Dee and Cy leaves there.
        Self.otherProcess(
            store, Self.group,
            change: { s in
                s.members[Self.dee] = MemberRange(joinedSeq: s.lastSeq)
                s.members[Self.cy]?.leftSeq = s.lastSeq + 1
            }, sends: 2)
        let next = try MessageBatch.run(
            [Self.send("new", from: Self.dee, to: Self.group), Self.send("gone", from: Self.cy, to: Self.group)],
            known: first.states,
            maxGroupMembers: 10, store: store)
        #expect(next.results.map(Self.code) == [nil, .notMember])
        #expect((try? next.results[0].get())?.seq == 5)
        let state = try #require(next.states[Self.group])
        #expect(state.version == 1)
        #expect(state.members[Self.dee] == MemberRange(joinedSeq: 2))
        // A rename there too: the name cached from the reload is the new one.
        Self.otherProcess(store, Self.group, change: { $0.name = "renamed elsewhere" }, sends: 0)
        let third = try MessageBatch.run(
            [Self.send("x", from: Self.ann, to: Self.group)], known: next.states, maxGroupMembers: 10, store: store)
        #expect(third.states[Self.group]?.name == "renamed elsewhere")
        #expect(third.states[Self.group]?.version == 2)
    }

    @Test func membershipAndNameChangesBumpTheVersionMessagesDoNot() throws {
        let store = Self.store()
        store.friends.insert(FriendRepository.Pair(Self.ann, Self.dee))
        let sends = try MessageBatch.run(
            [
                Self.send("a", from: Self.ann, to: Self.group),
                ConversationWrite(
                    conversationId: Self.group, actor: Self.ann,
                    action: .system(SystemEvent(event: "call_missed", actorId: Self.ann))),
            ],
            known: [:], maxGroupMembers: 10, store: store)
        #expect(sends.states[Self.group]?.version == 0)
        #expect(store.versions[Self.group] == 0)
        let changes = try MessageBatch.run(
            [
                ConversationWrite(conversationId: Self.group, actor: Self.ann, action: .add(userId: Self.dee)),
                ConversationWrite(conversationId: Self.group, actor: Self.cy, action: .leave),
                ConversationWrite(conversationId: Self.group, actor: Self.ann, action: .rename("n")),
                ConversationWrite(conversationId: Self.group, actor: Self.cy, action: .rename("refused")),
            ], known: sends.states, maxGroupMembers: 10, store: store)
        #expect(changes.results.map(Self.code) == [nil, nil, nil, .notMember])
        #expect(changes.states[Self.group]?.version == 3)
        #expect(store.versions[Self.group] == 3)
        #expect(store.lastSeqs[Self.group] == 6)
    }

    @Test func aResendStoredByAnotherProcessGetsTheOriginal() throws {
        let store = Self.store()
        let first = try MessageBatch.run(
            [Self.send("a", from: Self.ann, to: Self.group)], known: [:], maxGroupMembers: 10, store: store)
        // The first attempt of a resend was committed by another process (the client's connection moved).
        Self.otherProcess(store, Self.group, sends: 0)
        let original = try store.insert([
            NewMessage(
                conversationId: Self.group, seq: 3, senderId: Self.ann, kind: .text, body: "r", clientId: "retry")
        ])[0]
        store.lastSeqs[Self.group] = 3
        let resent = try MessageBatch.run(
            [
                Self.send("r", from: Self.ann, to: Self.group, clientId: "retry"),
                Self.send("b", from: Self.bob, to: Self.group),
            ],
            known: first.states, maxGroupMembers: 10, store: store)
        #expect(resent.stored == [false, true])
        #expect((try? resent.results[0].get())?.id == original.id)
        #expect((try? resent.results[1].get())?.seq == 4)
    }
}
