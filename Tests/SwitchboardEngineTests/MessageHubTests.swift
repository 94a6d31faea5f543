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
import Testing

@testable import SwitchboardServer

/// The messaging engine on the test database, delivering to a fake outbox (no sockets).
@Suite struct MessageHubTests {
    struct Rig {
        let registry = SessionRegistry()
        let outbox = FakeOutbox()
        let clock = ManualClock()
        let hub: MessageHub
        let configuration: MessagingConfiguration
        let ann: Int64, bob: Int64, cy: Int64
        let group: Int64

        init(redeliversResends: Bool = false) async throws {
            let db = EngineTestDatabase.shared
            var configuration = MessagingConfiguration()
            configuration.typingTTL = 6
            self.configuration = configuration
            hub = MessageHub(
                registry: registry, outbox: outbox, clock: clock, pool: try db.pool, configuration: configuration,
                metrics: ServerMetrics(loopCount: 1), logger: testLogger(), redeliversResends: redeliversResends)
            ann = try await db.user("Ann")
            bob = try await db.user("Bob")
            cy = try await db.user("Cy")
            try await db.befriend(ann, bob)
            try await db.befriend(ann, cy)
            let (a, b, c) = (ann, bob, cy)
            group = try await db.pool.transaction { db in
                try MessageStore.createGroup(db, creator: a, name: "g", members: [b, c]).conversationId
            }
        }

        func connect(_ user: Int64) -> Device {
            let d = device(user: user, session: newSession())
            registry.add(d)
            return d
        }

        func send(_ text: String, from origin: Device, to conversation: Int64, clientId: String? = nil, id: Int64) {
            hub.submit(
                WriteRequest(
                    conversationId: conversation, actor: origin.userId,
                    action: .send(kind: .text, body: text, clientId: clientId, voiceId: nil),
                    origin: origin, reply: .ack(.int(id))))
        }

        /// The result of request `id` on a connection, once replied.
        func result(_ id: Int64, on d: Device) -> Result<ChatMessage, ServiceError>? {
            for reply in outbox.replies(to: d.connection) {
                if case .message(.int(id), _, let result, ack: true) = reply { return result }
            }
            return nil
        }

        /// The error code of request `id` on a connection, once replied with an error.
        func errorCode(_ id: Int64, on d: Device) -> ErrorCode? {
            guard case .failure(let e) = result(id, on: d) else { return nil }
            return e.code
        }

        func messages(to d: Device) -> [OutboundMessage] {
            outbox.items(to: d.connection).compactMap { if case .message(let m) = $0 { m } else { nil } }
        }
    }

    @Test func aSendIsAcknowledgedToItsConnectionAndDeliveredToEveryOtherDevice() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.ann)
        let annPhone = rig.connect(rig.ann)
        let bob = rig.connect(rig.bob)
        let cy = rig.connect(rig.cy)
        rig.send("hello", from: ann, to: rig.group, clientId: "k1", id: 1)
        #expect(await rig.outbox.wait { rig.result(1, on: ann) != nil && rig.messages(to: cy).count == 1 })
        let message = try #require(try? rig.result(1, on: ann)?.get())
        #expect(message.seq == 2)  // 1 is the group's creation
        #expect(message.text == "hello")
        // Every device of every member but the sending connection gets the event, encoded once and shared.
        #expect(rig.messages(to: ann).isEmpty)
        #expect(rig.messages(to: annPhone).map(\.seq) == [2])
        #expect(rig.messages(to: bob).map(\.seq) == [2])
        #expect(rig.messages(to: bob).first === rig.messages(to: cy).first)

        // A resend with the same client id gets the original acknowledgement and is not delivered again.
        rig.send("hello", from: ann, to: rig.group, clientId: "k1", id: 2)
        #expect(await rig.outbox.wait { rig.result(2, on: ann) != nil })
        #expect((try? rig.result(2, on: ann)?.get())?.id == message.id)
        await settle(rig.hub.writer(for: rig.group).queue)
        #expect(rig.messages(to: bob).count == 1)
    }

    /// In a cluster the node that stored a message may have died before sending it to the other nodes, so a
    /// resend that finds it stored delivers it again (connections drop seqs they were sent: `SentSeqs`).
    @Test func inAClusterAResendDeliversTheStoredMessageAgain() async throws {
        let rig = try await Rig(redeliversResends: true)
        let ann = rig.connect(rig.ann)
        let bob = rig.connect(rig.bob)
        rig.send("hello", from: ann, to: rig.group, clientId: "k1", id: 1)
        #expect(await rig.outbox.wait { rig.result(1, on: ann) != nil && rig.messages(to: bob).count == 1 })
        let message = try #require(try? rig.result(1, on: ann)?.get())
        rig.send("hello", from: ann, to: rig.group, clientId: "k1", id: 2)
        #expect(await rig.outbox.wait { rig.result(2, on: ann) != nil && rig.messages(to: bob).count == 2 })
        #expect((try? rig.result(2, on: ann)?.get())?.id == message.id)
        #expect(rig.messages(to: bob).map(\.seq) == [message.seq, message.seq])
        #expect(rig.messages(to: ann).isEmpty)
    }

    @Test func strangersAndExFriendsAreRefused() async throws {
        let rig = try await Rig()
        let db = EngineTestDatabase.shared
        let stranger = try await db.user("Dee")
        let dee = rig.connect(stranger)
        let bob = rig.connect(rig.bob)
        rig.send("let me in", from: dee, to: rig.group, id: 1)
        #expect(await rig.outbox.wait { rig.result(1, on: dee) != nil })
        #expect(rig.errorCode(1, on: dee) == .notMember)

        // A direct conversation carries messages between friends only.
        let (b, s) = (rig.bob, stranger)
        let direct = try await db.pool.withConnection { db in try MessageStore.directConversation(db, b, s) }
        rig.send("hi", from: bob, to: direct, id: 2)
        #expect(await rig.outbox.wait { rig.result(2, on: bob) != nil })
        #expect(rig.errorCode(2, on: bob) == .notFriends)
        #expect(rig.messages(to: dee).isEmpty)
    }

    @Test func typingReachesTheOtherMembersAndExpiresOnTheClock() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.ann)
        let bob = rig.connect(rig.bob)
        let writer = rig.hub.writer(for: rig.group)
        writer.typing(
            conversationId: rig.group, userId: rig.ann, activity: "typing", active: true, origin: ann, id: .int(7))
        let typing = { rig.outbox.events("typing", to: bob.connection) }
        #expect(await rig.outbox.wait { !typing().isEmpty })
        #expect(typing().first?["active"] as? Bool == true)
        #expect(typing().first?["expires_in_ms"] as? Int == 6000)
        if case .empty(.int(7), _, nil) = rig.outbox.replies(to: ann.connection).first {
        } else {
            Issue.record("no empty reply")
        }
        #expect(rig.outbox.events("typing", to: ann.connection).isEmpty)

        // Not before the TTL; then the indicator goes off by itself.
        await settle(writer.queue)
        rig.clock.advance(by: 5.9)
        await settle(writer.queue)
        #expect(typing().count == 1)
        rig.clock.advance(by: 0.2)
        #expect(await rig.outbox.wait { typing().count == 2 })
        #expect(typing().last?["active"] as? Bool == false)
    }

    @Test func aMessageEndsTheSendersTyping() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.ann)
        let bob = rig.connect(rig.bob)
        let writer = rig.hub.writer(for: rig.group)
        writer.typing(
            conversationId: rig.group, userId: rig.ann, activity: "typing", active: true, origin: ann, id: .int(1))
        #expect(await rig.outbox.wait { rig.outbox.events("typing", to: bob.connection).count == 1 })
        rig.send("done typing", from: ann, to: rig.group, id: 2)
        #expect(await rig.outbox.wait { rig.outbox.events("typing", to: bob.connection).count == 2 })
        // The message comes first, then the indicator goes off.
        let items = rig.outbox.items(to: bob.connection)
        let kinds = items.map { item -> String in
            switch item {
            case .message: "message"
            case .ephemeral: "typing"
            default: "other"
            }
        }
        #expect(kinds == ["typing", "message", "typing"])
    }

    /// A write through `hub`, answered through its completion.
    static func write(_ hub: MessageHub, _ conversation: Int64, actor: Int64, _ action: WriteRequest.Action) async
        -> Result<ChatMessage, ServiceError>
    {
        await withCheckedContinuation { done in
            hub.submit(
                WriteRequest(
                    conversationId: conversation, actor: actor, action: action,
                    completion: { done.resume(returning: $0) }))
        }
    }

    /// Two hubs on one database stand for two server processes: each caches the group, and each sees at once
    /// what the other changed (the batch's row lock and version check; typing's version check).
    @Test func aSecondHubOnTheSameDatabaseSeesMembershipChangesAtOnce() async throws {
        let rig = try await Rig()
        let db = EngineTestDatabase.shared
        let dee = try await db.user("Dee")
        try await db.befriend(rig.ann, dee)
        let registry2 = SessionRegistry()
        let outbox2 = FakeOutbox()
        let hub2 = MessageHub(
            registry: registry2, outbox: outbox2, clock: rig.clock, pool: try db.pool, configuration: rig.configuration,
            metrics: ServerMetrics(loopCount: 1), logger: testLogger())
        let deeThere = device(user: dee, session: newSession())
        registry2.add(deeThere)
        let typingReply = { (id: Int64) -> ServiceError?? in
            for reply in outbox2.replies(to: deeThere.connection) {
                if case .empty(.int(id), _, let error) = reply { return .some(error) }
            }
            return nil
        }
        let send = { (hub: MessageHub, actor: Int64, text: String) in
            await Self.write(hub, rig.group, actor: actor, .send(kind: .text, body: text, clientId: nil, voiceId: nil))
        }

        // Both hubs cache the group; Dee is no member yet.
        #expect((try? await send(rig.hub, rig.bob, "one").get())?.seq == 2)
        #expect((try? await send(hub2, rig.cy, "two").get())?.seq == 3)
        hub2.writer(for: rig.group).typing(
            conversationId: rig.group, userId: dee, activity: "typing", active: true, origin: deeThere, id: .int(1))
        #expect(await outbox2.wait { typingReply(1) != nil })
        #expect(typingReply(1)??.code == .notMember)

        // Added through the first hub: the second lets Dee type and send at once, with the next seq.
        #expect((try? await Self.write(rig.hub, rig.group, actor: rig.ann, .add(userId: dee)).get())?.seq == 4)
        hub2.writer(for: rig.group).typing(
            conversationId: rig.group, userId: dee, activity: "typing", active: true, origin: deeThere, id: .int(2))
        #expect(await outbox2.wait { typingReply(2) != nil })
        #expect(typingReply(2)! == nil)
        #expect((try? await send(hub2, dee, "hi").get())?.seq == 5)

        // Left through the first hub: refused by the second at once.
        #expect((try? await Self.write(rig.hub, rig.group, actor: dee, .leave).get())?.seq == 6)
        hub2.writer(for: rig.group).typing(
            conversationId: rig.group, userId: dee, activity: "typing", active: false, origin: deeThere, id: .int(3))
        #expect(await outbox2.wait { typingReply(3) != nil })
        #expect(typingReply(3)??.code == .notMember)
        if case .failure(let e) = await send(hub2, dee, "still?") {
            #expect(e.code == .notMember)
        } else {
            Issue.record("sent after leaving")
        }
        #expect((try? await send(hub2, rig.bob, "on").get())?.seq == 7)
    }
}
