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

/// Conversations and messages made in SQL for the service's tests (the writers are `MessageHubTests`' subject).
enum MessagingFixtures {
    /// A group of `creator` and `members` (its first message, seq 1, is the system message `created`).
    static func group(_ creator: Int64, _ members: [Int64]) async throws -> Int64 {
        try await EngineTestDatabase.shared.pool.transaction { db in
            try MessageStore.createGroup(db, creator: creator, name: nil, members: members).conversationId
        }
    }

    /// A message of `sender` (nil: a system message) at the conversation's next seq.
    @discardableResult
    static func message(
        _ conversationId: Int64, from sender: Int64?, text: String = "hi"
    ) async throws -> (id: Int64, seq: Int64) {
        try await EngineTestDatabase.shared.pool.transaction { db in
            guard
                let r = try db.execute(
                    cached: """
                        WITH head AS (UPDATE conversations SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq)
                        INSERT INTO messages (conversation_id, seq, sender_id, kind, body)
                        SELECT $1, last_seq, $2, $3, $4 FROM head RETURNING id, seq
                        """,
                    [
                        .int(conversationId), sender.map { .int($0) }, .text(sender == nil ? "system" : "text"),
                        .text(sender == nil ? #"{"event":"renamed","name":"x"}"# : text),
                    ]
                ).first
            else { throw EngineTestError.noRow }
            return (try r.decode(column: 0), try r.decode(column: 1))
        }
    }

    /// `user` joins after the conversation's last message (it sees what comes next only).
    static func join(_ conversationId: Int64, _ user: Int64) async throws {
        try await EngineTestDatabase.shared.pool.transaction { db in
            let last = try MessageStore.head(db, id: conversationId)?.lastSeq ?? 0
            try MessageStore.addMember(db, conversationId: conversationId, userId: user, joinedSeq: last)
        }
    }

    /// `user` leaves at the conversation's last message.
    static func leave(_ conversationId: Int64, _ user: Int64) async throws {
        try await EngineTestDatabase.shared.pool.transaction { db in
            let last = try MessageStore.head(db, id: conversationId)?.lastSeq ?? 0
            try MessageStore.removeMember(db, conversationId: conversationId, userId: user, leftSeq: last)
        }
    }

    /// Runs one statement (a deletion, a block).
    static func execute(_ sql: String, _ values: [PostgresData?]) async throws {
        try await EngineTestDatabase.shared.pool.withConnection { db in try db.execute(cached: sql, values) }
    }
}

/// `MessagingService` without sockets: its rules before the writers' hand-offs, the reads, read markers, hiding and
/// pins against the test database, its message bucket on a manual clock.
@Suite("Messaging service (the test database, a manual clock)")
struct MessagingServiceTests {
    let clock = ManualClock()

    /// A service with a message bucket of 3 (then 1 a second), at most 2 pins and 5 members per group.
    func service() throws -> MessagingService {
        var configuration = MessagingConfiguration()
        configuration.sendBurst = 3
        configuration.sendsPerSecond = 1
        configuration.maxPinnedMessages = 2
        configuration.maxGroupMembers = 5
        configuration.historyMaxLimit = 20
        return MessagingService(db: try EngineTestDatabase.shared.pool, configuration: configuration, clock: clock)
    }

    @Test func theChecksBeforeTheHandOffKeepTheirAnswersAndTheBucketRefills() throws {
        let messaging = try service()
        let me: Int64 = 1
        #expect(throws: MessagingError.invalidParameter("client_id contains U+0000")) {
            try messaging.admitSend(userId: me, limitShare: 1, clientId: "a\u{0}", text: "hi", voiceId: nil)
        }
        #expect(
            MessagingError.invalidParameter("client_id contains U+0000").wire
                == ServiceError(.badRequest, "client_id contains U+0000"))
        #expect(throws: MessagingError.textOrVoice) {
            try messaging.admitSend(userId: me, limitShare: 1, clientId: nil, text: "hi", voiceId: 3)
        }
        #expect(throws: MessagingError.self) {
            try messaging.admitSend(userId: me, limitShare: 1, clientId: nil, text: "   ", voiceId: nil)
        }
        // The two refusals after the client id's took tokens (the bucket is counted before the body's checks, as it
        // always was): the third token, then none.
        #expect(try messaging.admitSend(userId: me, limitShare: 1, clientId: nil, text: "hi", voiceId: nil) == .text)
        #expect(throws: MessagingError.rateLimited(retryAfterMilliseconds: 1000)) {
            try messaging.admitSend(userId: me, limitShare: 1, clientId: nil, text: "hi", voiceId: nil)
        }
        clock.advance(by: 1)
        #expect(try messaging.admitSend(userId: me, limitShare: 1, clientId: "c-1", text: "hi", voiceId: nil) == .text)
        clock.advance(by: 1)
        #expect(try messaging.admitSend(userId: me, limitShare: 1, clientId: nil, text: nil, voiceId: 9) == .voice)
        #expect(MessagingError.rateLimited(retryAfterMilliseconds: 7).wire.extra == ["retry_after_ms": 7])
        #expect(MessagingError.textOrVoice.wire == ServiceError(.badRequest, "give text or voice_id (one of them)"))
    }

    @Test func aDirectConversationFollowsTheDirectMessagePolicy() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        try await db.befriend(ann, bob)
        let messaging = try service()
        await #expect(throws: MessagingError.conversationWithYourself) {
            _ = try await messaging.direct(ann, with: ann)
        }
        await #expect(throws: MessagingError.notFriends) { _ = try await messaging.direct(ann, with: zed) }
        let first = try await messaging.direct(ann, with: bob)
        #expect(first.conversation.kind == "direct")
        #expect(Set(first.conversation.members.map(\.userId)) == [ann, bob])
        #expect(
            try await messaging.direct(bob, with: ann).conversation.conversationId == first.conversation.conversationId)
        // A block either way: as if the user did not exist.
        try await MessagingFixtures.execute(
            "INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)", [.int(bob), .int(ann)])
        await #expect(throws: MessagingError.noSuchUser) { _ = try await messaging.direct(ann, with: bob) }
        #expect(MessagingError.noSuchUser.wire == ServiceError(.notFound, "no such user"))
        // Sending by user_id resolves the same way; without either id it is refused.
        await #expect(throws: MessagingError.conversationOrUser) {
            _ = try await messaging.resolveSend(
                userId: ann, conversationId: nil, otherUser: nil, text: "x", voiceId: nil)
        }
        await #expect(throws: MessagingError.noSuchVoiceClip) {
            _ = try await messaging.resolveSend(
                userId: ann, conversationId: first.conversation.conversationId, otherUser: nil, text: "",
                voiceId: 1 << 40)
        }
    }

    @Test func historyPagesAndTheirEdges() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        let group = try await MessagingFixtures.group(ann, [bob, try await db.user("cal")])
        for i in 1...5 { try await MessagingFixtures.message(group, from: i % 2 == 0 ? ann : bob, text: "m\(i)") }
        let messaging = try service()
        await #expect(throws: MessagingError.historyLimit(max: 20)) {
            _ = try await messaging.history(viewer: ann, conversationId: group, before: nil, limit: 0)
        }
        await #expect(throws: MessagingError.historyLimit(max: 20)) {
            _ = try await messaging.history(viewer: ann, conversationId: group, before: nil, limit: 21)
        }
        await #expect(throws: MessagingError.beforeNotASequenceNumber) {
            _ = try await messaging.history(viewer: ann, conversationId: group, before: 0, limit: nil)
        }
        // A stranger, and a conversation that does not exist: one answer.
        await #expect(throws: MessagingError.notMember) {
            _ = try await messaging.history(viewer: zed, conversationId: group, before: nil, limit: nil)
        }
        await #expect(throws: MessagingError.notMember) {
            _ = try await messaging.history(viewer: ann, conversationId: 1 << 50, before: nil, limit: nil)
        }
        let page = try await messaging.history(viewer: bob, conversationId: group, before: nil, limit: 4)
        #expect(page.messages.map(\.seq) == [6, 5, 4, 3])
        #expect(page.hasMore)
        let rest = try await messaging.history(viewer: bob, conversationId: group, before: 3, limit: 4)
        #expect(rest.messages.map(\.seq) == [2, 1])
        #expect(!rest.hasMore)
        // Int64.min and Int64.max are cursors like any other: no trap.
        #expect(try await messaging.history(viewer: bob, conversationId: group, before: .max, limit: 1).hasMore)
    }

    @Test func readMarkersMoveForwardAndTellTheCurrentMembers() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, cal, zed) = (
            try await db.user("ann"), try await db.user("bob"), try await db.user("cal"), try await db.user("zed")
        )
        let group = try await MessagingFixtures.group(ann, [bob, cal])
        try await MessagingFixtures.message(group, from: ann)
        try await MessagingFixtures.leave(group, cal)
        let messaging = try service()
        await #expect(throws: MessagingError.readSeqNegative) {
            _ = try await messaging.markRead(userId: bob, conversationId: group, seq: -1)
        }
        await #expect(throws: MessagingError.notMember) {
            _ = try await messaging.markRead(userId: zed, conversationId: group, seq: 1)
        }
        // Past the end means the end; the event goes to the current members (cal left).
        let (read, events) = try await messaging.markRead(userId: bob, conversationId: group, seq: .max)
        #expect(read.readSeq == 2)
        let told = try #require(events.first)
        #expect(told.name == "conversation.read")
        #expect(Set(told.users) == [ann, bob])
        #expect((told.event as? ReadReceipt) == ReadReceipt(conversationId: group, userId: bob, seq: 2))
        // Never back.
        #expect(try await messaging.markRead(userId: bob, conversationId: group, seq: 1).0.readSeq == 2)
    }

    @Test func hidingIsForTheCallerAndToldToItsDevicesOnly() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        let group = try await MessagingFixtures.group(ann, [bob, try await db.user("cal")])
        let (id, _) = try await MessagingFixtures.message(group, from: ann)
        let messaging = try service()
        await #expect(throws: MessagingError.noSuchMessage) { _ = try await messaging.hide(userId: zed, messageId: id) }
        await #expect(throws: MessagingError.noSuchMessage) {
            _ = try await messaging.hide(userId: bob, messageId: 1 << 50)
        }
        let events = try await messaging.hide(userId: bob, messageId: id)
        #expect(events.map(\.users) == [[bob]])
        #expect((events.first?.event as? HiddenMessage) == HiddenMessage(conversationId: group, messageId: id))
        // Hidden from bob's history only; again is the same.
        #expect(try await messaging.hide(userId: bob, messageId: id).count == 1)
        let history = try await messaging.history(viewer: bob, conversationId: group, before: nil, limit: nil)
        #expect(!history.messages.contains { $0.id == id })
        #expect(
            try await messaging.history(viewer: ann, conversationId: group, before: nil, limit: nil).messages.contains {
                $0.id == id
            })
        #expect(try await messaging.conversationOf(message: id) == group)
        await #expect(throws: MessagingError.noSuchMessage) { _ = try await messaging.conversationOf(message: 1 << 50) }
    }

    @Test func aGroupsChecksComeBeforeItsTransaction() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, cal, zed) = (
            try await db.user("ann"), try await db.user("bob"), try await db.user("cal"), try await db.user("zed")
        )
        try await db.befriend(ann, bob)
        try await db.befriend(ann, cal)
        let messaging = try service()
        // The creator and duplicates do not count.
        await #expect(throws: MessagingError.groupTooSmall) {
            _ = try await messaging.createGroup(creator: ann, memberIds: [ann, bob, bob], name: nil)
        }
        await #expect(throws: MessagingError.groupTooLarge(max: 5)) {
            _ = try await messaging.createGroup(creator: ann, memberIds: [1, 2, 3, 4, 5], name: nil)
        }
        #expect(MessagingError.groupTooLarge(max: 5).wire == ServiceError(.tooMany, "a group has at most 5 members"))
        await #expect(throws: MessagingError.self) {
            _ = try await messaging.createGroup(creator: ann, memberIds: [bob, cal], name: "  ")
        }
        await #expect(throws: MessagingError.membersNotFriends) {
            _ = try await messaging.createGroup(creator: ann, memberIds: [bob, zed], name: nil)
        }
        let created = try await messaging.createGroup(creator: ann, memberIds: [bob, cal], name: "trip")
        #expect(created.seq == 1)
        #expect(created.system?.event == "created")
        #expect(Set(created.system?.userIds ?? []) == [ann, bob, cal])
        #expect(throws: MessagingError.self) { try messaging.checkGroupName("a\u{0}b") }
        #expect(throws: MessagingError.badSince) { _ = try messaging.since(["x": 1]) }
        #expect(throws: MessagingError.badSince) { _ = try messaging.since(["1": -1]) }
        #expect(try messaging.since(["12": 7, "9223372036854775807": 0]) == [12: 7, .max: 0])
    }

    @Test func aMemberPinsAndTheMembersWhoSeeTheMessageHearIt() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, cal, dan, zed) = (
            try await db.user("ann"), try await db.user("bob"), try await db.user("cal"), try await db.user("dan"),
            try await db.user("zed")
        )
        let group = try await MessagingFixtures.group(ann, [bob, cal])
        let (first, _) = try await MessagingFixtures.message(group, from: bob, text: "the address")
        // Dan joins after the first message: he does not see it, nor its pin.
        try await MessagingFixtures.join(group, dan)
        let (second, _) = try await MessagingFixtures.message(group, from: dan, text: "hello all")
        let messaging = try service()
        let (pinned, events) = try await messaging.pin(Caller(userId: cal), messageId: first)
        #expect(pinned.conversationId == group)
        #expect(pinned.pin.message.id == first)
        #expect(pinned.pin.message.text == "the address")
        #expect(pinned.pin.pinnedBy == cal)
        let told = try #require(events.first)
        #expect(events.count == 1)
        #expect(told.name == "message.pinned")
        #expect(Set(told.users) == [ann, bob, cal])
        #expect((told.event as? MessagePinnedEvent) == MessagePinnedEvent(conversationId: group, pin: pinned.pin))
        // Pinning again answers the stored pin (its author and time) and tells nobody.
        let (again, none) = try await messaging.pin(Caller(userId: ann), messageId: first)
        #expect(again == pinned)
        #expect(none.isEmpty)
        // The list: what each current member sees, latest pin first.
        _ = try await messaging.pin(Caller(userId: dan), messageId: second)
        let annSees = try await messaging.pins(conversationId: group, viewer: ann)
        #expect(annSees.pins.map(\.message.id) == [second, first])
        #expect(annSees.maxPins == 2)
        #expect(try await messaging.pins(conversationId: group, viewer: dan).pins.map(\.message.id) == [second])
        // Strangers learn nothing: no such message, no such conversation.
        await #expect(throws: MessagingError.noSuchMessage) {
            _ = try await messaging.pin(Caller(userId: zed), messageId: first)
        }
        await #expect(throws: MessagingError.noSuchMessage) {
            _ = try await messaging.unpin(Caller(userId: zed), messageId: first)
        }
        await #expect(throws: MessagingError.noSuchMessage) {
            _ = try await messaging.pin(Caller(userId: dan), messageId: first)
        }
        await #expect(throws: MessagingError.notMember) {
            _ = try await messaging.pins(conversationId: group, viewer: zed)
        }
        // Unpinning tells the members who see it; again tells nobody.
        let (unpinned, unpinEvents) = try await messaging.unpin(Caller(userId: bob), messageId: second)
        #expect(unpinned == UnpinResult(conversationId: group, messageId: second))
        #expect(unpinEvents.map(\.name) == ["message.unpinned"])
        #expect(Set(unpinEvents.first?.users ?? []) == [ann, bob, cal, dan])
        #expect(
            (unpinEvents.first?.event as? MessageUnpinnedEvent)
                == MessageUnpinnedEvent(conversationId: group, messageId: second, userId: bob))
        #expect(try await messaging.unpin(Caller(userId: bob), messageId: second).1.isEmpty)
        #expect(try await messaging.pins(conversationId: group, viewer: ann).pins.map(\.message.id) == [first])
    }

    @Test func pinsAreLimitedAndDeletedOrSystemMessagesCannotBePinned() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        let group = try await MessagingFixtures.group(ann, [bob, try await db.user("cal")])
        var ids: [Int64] = []
        for i in 1...3 { ids.append(try await MessagingFixtures.message(group, from: ann, text: "m\(i)").id) }
        let (system, _) = try await MessagingFixtures.message(group, from: nil)
        let messaging = try service()
        let me = Caller(userId: bob)
        _ = try await messaging.pin(me, messageId: ids[0])
        clock.advance(by: 10)
        _ = try await messaging.pin(me, messageId: ids[1])
        clock.advance(by: 10)
        await #expect(throws: MessagingError.tooManyPins(max: 2)) { _ = try await messaging.pin(me, messageId: ids[2]) }
        #expect(
            MessagingError.tooManyPins(max: 2).wire
                == ServiceError(.tooMany, "a conversation has at most 2 pinned messages"))
        await #expect(throws: MessagingError.systemMessageNotPinnable) {
            _ = try await messaging.pin(me, messageId: system)
        }
        // A pinned message deleted for everyone drops out of the list and frees its place; it cannot be pinned again.
        try await MessagingFixtures.execute(
            "UPDATE messages SET deleted_at = now(), body = NULL WHERE id = $1", [.int(ids[0])])
        #expect(try await messaging.pins(conversationId: group, viewer: ann).pins.map(\.message.id) == [ids[1]])
        clock.advance(by: 10)
        await #expect(throws: MessagingError.messageDeleted) { _ = try await messaging.pin(me, messageId: ids[0]) }
        clock.advance(by: 10)
        let (third, told) = try await messaging.pin(me, messageId: ids[2])
        #expect(third.pin.message.id == ids[2])
        #expect(told.count == 1)
        // Unpinning the deleted message's pin: nothing to tell (its tombstone told the members).
        clock.advance(by: 10)
        #expect(try await messaging.unpin(me, messageId: ids[0]).1.isEmpty)
    }

    @Test func pinsCountAgainstTheMessageBucketAndAFormerMemberMayNotPin() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, cal) = (try await db.user("ann"), try await db.user("bob"), try await db.user("cal"))
        let group = try await MessagingFixtures.group(ann, [bob, cal])
        let (id, _) = try await MessagingFixtures.message(group, from: ann)
        let messaging = try service()
        let me = Caller(userId: ann)
        _ = try await messaging.pin(me, messageId: id)
        _ = try await messaging.unpin(me, messageId: id)
        _ = try await messaging.pin(me, messageId: id)
        await #expect(throws: MessagingError.rateLimited(retryAfterMilliseconds: 1000)) {
            _ = try await messaging.unpin(me, messageId: id)
        }
        clock.advance(by: 1)
        _ = try await messaging.unpin(me, messageId: id)
        // Cal saw the message, then left: the pins are the current members'.
        try await MessagingFixtures.leave(group, cal)
        await #expect(throws: MessagingError.notMember) {
            _ = try await messaging.pin(Caller(userId: cal), messageId: id)
        }
        await #expect(throws: MessagingError.notMember) {
            _ = try await messaging.pins(conversationId: group, viewer: cal)
        }
        // A member who hid the message neither lists its pin nor hears of it.
        clock.advance(by: 5)
        _ = try await messaging.hide(userId: bob, messageId: id)
        let (_, events) = try await messaging.pin(me, messageId: id)
        #expect(Set(events.first?.users ?? []) == [ann])
        #expect(try await messaging.pins(conversationId: group, viewer: bob).pins.isEmpty)
        #expect(try await messaging.pins(conversationId: group, viewer: ann).pins.count == 1)
    }

    @Test func concurrentPinsNeverPassTheLimit() async throws {
        let db = EngineTestDatabase.shared
        var members: [Int64] = []
        for name in ["ann", "bob", "cal", "dan", "eve", "fay"] { members.append(try await db.user(name)) }
        let group = try await MessagingFixtures.group(members[0], Array(members.dropFirst()))
        var ids: [Int64] = []
        for member in members { ids.append(try await MessagingFixtures.message(group, from: member).id) }
        let messaging = try service()
        // Six members pin six messages at once (each on its own bucket); the limit is 2.
        let outcomes = await withTaskGroup(of: Bool.self) { tasks in
            for (member, id) in zip(members, ids) {
                tasks.addTask {
                    do {
                        _ = try await messaging.pin(Caller(userId: member), messageId: id)
                        return true
                    } catch { return false }
                }
            }
            return await tasks.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 2)
        #expect(try await messaging.pins(conversationId: group, viewer: members[0]).pins.count == 2)
    }
}
