//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCalls
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Testing

@testable import SwitchboardServer

/// `CallService` driven through a fake outbox and a manual clock: no sockets, no waiting for real timeouts.
@Suite struct CallServiceTests {
    struct Rig {
        let registry = SessionRegistry()
        let outbox = FakeOutbox()
        let clock = ManualClock()
        let calls: CallService
        let a: Int64
        let b: Int64

        init(settings: CallSettings = CallSettings()) async throws {
            let pool = try EngineTestDatabase.shared.pool
            let metrics = ServerMetrics(loopCount: 1)
            let messages = MessageHub(
                registry: registry, outbox: outbox, clock: clock, pool: pool, configuration: MessagingConfiguration(),
                metrics: metrics,
                logger: testLogger())
            calls = CallService(
                registry: registry, outbox: outbox, clock: clock, settings: settings, pool: pool, messages: messages,
                logger: testLogger())
            a = try await EngineTestDatabase.shared.user("Ann")
            b = try await EngineTestDatabase.shared.user("Bob")
            try await EngineTestDatabase.shared.befriend(a, b)
        }

        /// A device comes online (what a connection does when it authenticates).
        func connect(_ user: Int64, session: Int64 = newSession()) -> Device {
            let d = device(user: user, session: session)
            registry.add(d)
            calls.connectionOpened(d)
            return d
        }

        /// A connection closes.
        func disconnect(_ d: Device) {
            registry.remove(d.connection, userId: d.userId)
            calls.connectionClosed(d)
        }

        /// `call.invite` as the handler runs it.
        func invite(from origin: Device, to callee: Int64, id: Int64) {
            let online = Set(registry.sessions(ofUser: callee).map(DeviceID.init))
            calls.perform(origin: origin, id: .int(id), op: "call.test") {
                (r: inout CallRegistry, now: UInt64) throws(CallError) in
                let outcome = try r.invite(
                    caller: UserID(origin.userId), callerDevice: DeviceID(origin.sessionId), callee: UserID(callee),
                    media: .voice,
                    calleeOnlineDevices: online, offer: "v=0 offer", now: now)
                var w = JSONWriter()
                w.beginObject()
                w.key("call")
                CallService.write(
                    r.call(outcome.call.id) ?? outcome.call, &w, offer: outcome.disposition == .joinedExisting, now: now
                )
                w.key("disposition")
                w.string("\(outcome.disposition)")
                w.endObject()
                return (w.bytes, outcome.effects)
            }
        }

        func accept(_ callId: String, by d: Device, id: Int64) {
            calls.perform(origin: d, id: .int(id), op: "call.test") {
                (r: inout CallRegistry, now: UInt64) throws(CallError) in
                (
                    Array("{}".utf8),
                    try r.accept(
                        CallID(callId), device: DeviceID(d.sessionId), user: UserID(d.userId), answer: "v=0 answer",
                        now: now)
                )
            }
        }

        /// The decoded `ok` of the reply to request `id` on a connection (nil: not there yet, or an error).
        func ok(_ id: Int64, on d: Device) -> [String: Any]? {
            for reply in outbox.replies(to: d.connection) {
                if case .raw(.int(id), _, .success(let bytes)) = reply {
                    return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
                }
            }
            return nil
        }

        func error(_ id: Int64, on d: Device) -> ServiceError? {
            for reply in outbox.replies(to: d.connection) {
                if case .raw(.int(id), _, .failure(let e)) = reply { return e }
            }
            return nil
        }
    }

    @Test func ringingCallTimesOutOnTheInjectedClock() async throws {
        var settings = CallSettings()
        settings.ringTimeout = 30
        let rig = try await Rig(settings: settings)
        let ann = rig.connect(rig.a)
        let bob = rig.connect(rig.b)
        rig.invite(from: ann, to: rig.b, id: 1)
        #expect(await rig.outbox.wait { rig.ok(1, on: ann) != nil })
        #expect(rig.ok(1, on: ann)?["disposition"] as? String == "ringing")
        let callId = try #require((rig.ok(1, on: ann)?["call"] as? [String: Any])?["call_id"] as? String)
        // The reply is the caller's first item, the ringing event after it; the callee rings.
        #expect(await rig.outbox.wait { !rig.outbox.events("call.ringing", to: ann.connection).isEmpty })
        if case .reply = rig.outbox.items(to: ann.connection).first {} else { Issue.record("the reply is not first") }
        #expect(rig.outbox.events("call.ring", to: bob.connection).first?["call_id"] as? String == callId)
        #expect(rig.outbox.events("call.ring", to: bob.connection).first?["offer"] as? String == "v=0 offer")

        // Not before the timeout...
        rig.clock.advance(by: 29.9)
        await settle(rig.calls.queue)
        #expect(rig.outbox.events("call.ended", to: ann.connection).isEmpty)
        // ...then both parties learn it ended as a timeout (after the history row is written).
        rig.clock.advance(by: 0.2)
        #expect(
            await rig.outbox.wait {
                !rig.outbox.events("call.ended", to: ann.connection).isEmpty
                    && !rig.outbox.events("call.ended", to: bob.connection).isEmpty
            })
        #expect(rig.outbox.events("call.ended", to: ann.connection).first?["reason"] as? String == "timeout")
        #expect(rig.outbox.events("call.ended", to: bob.connection).first?["call_id"] as? String == callId)
    }

    @Test func glareJoinsTheRingingCall() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.a)
        let bob = rig.connect(rig.b)
        rig.invite(from: ann, to: rig.b, id: 1)
        #expect(await rig.outbox.wait { rig.ok(1, on: ann) != nil })
        let first = try #require((rig.ok(1, on: ann)?["call"] as? [String: Any])?["call_id"] as? String)
        // Bob calls Ann while Ann's call rings at Bob: he joins it and answers Ann's offer.
        rig.invite(from: bob, to: rig.a, id: 2)
        #expect(await rig.outbox.wait { rig.ok(2, on: bob) != nil })
        let glare = try #require(rig.ok(2, on: bob))
        #expect(glare["disposition"] as? String == "joinedExisting")
        #expect((glare["call"] as? [String: Any])?["call_id"] as? String == first)
        #expect((glare["call"] as? [String: Any])?["offer"] as? String == "v=0 offer")
        #expect(await rig.outbox.wait { !rig.outbox.events("call.accepted", to: ann.connection).isEmpty })
        #expect(rig.outbox.events("call.accepted", to: ann.connection).first?["call_id"] as? String == first)
        // A second invite from Ann is refused: she is in a call.
        rig.invite(from: ann, to: rig.b, id: 3)
        #expect(await rig.outbox.wait { rig.error(3, on: ann) != nil })
        #expect(rig.error(3, on: ann)?.code == .alreadyInCall)
    }

    @Test func aDroppedDeviceHasItsGraceThenTheCallEnds() async throws {
        var settings = CallSettings()
        settings.reconnectGrace = 10
        let rig = try await Rig(settings: settings)
        let ann = rig.connect(rig.a)
        let bob = rig.connect(rig.b)
        rig.invite(from: ann, to: rig.b, id: 1)
        #expect(await rig.outbox.wait { rig.ok(1, on: ann) != nil })
        let callId = try #require((rig.ok(1, on: ann)?["call"] as? [String: Any])?["call_id"] as? String)
        rig.accept(callId, by: bob, id: 2)
        #expect(await rig.outbox.wait { rig.ok(2, on: bob) != nil })

        // Bob's connection drops: Ann is told how long the grace is.
        rig.disconnect(bob)
        #expect(await rig.outbox.wait { !rig.outbox.events("call.peer_connection_lost", to: ann.connection).isEmpty })
        #expect(rig.outbox.events("call.peer_connection_lost", to: ann.connection).first?["grace_ms"] as? Int == 10_000)

        // Bob's device comes back within the grace on a new connection of the same session: the call resumes.
        rig.clock.advance(by: 9)
        await settle(rig.calls.queue)
        let bobAgain = rig.connect(rig.b, session: bob.sessionId)
        #expect(await rig.outbox.wait { !rig.outbox.events("call.peer_reconnected", to: ann.connection).isEmpty })
        #expect(await rig.outbox.wait { !rig.outbox.events("call.resumed", to: bobAgain.connection).isEmpty })
        #expect(
            (rig.outbox.events("call.resumed", to: bobAgain.connection).first?["call"] as? [String: Any])?["state"]
                as? String == "active")
        // The closed connection got nothing after it closed.
        #expect(rig.outbox.events("call.resumed", to: bob.connection).isEmpty)

        // It drops again and stays away: past the grace the call ends as connection_lost.
        rig.disconnect(bobAgain)
        #expect(await rig.outbox.wait { rig.outbox.events("call.peer_connection_lost", to: ann.connection).count == 2 })
        rig.clock.advance(by: 9.9)
        await settle(rig.calls.queue)
        #expect(rig.outbox.events("call.ended", to: ann.connection).isEmpty)
        rig.clock.advance(by: 0.2)
        #expect(await rig.outbox.wait { !rig.outbox.events("call.ended", to: ann.connection).isEmpty })
        #expect(rig.outbox.events("call.ended", to: ann.connection).first?["reason"] as? String == "connection_lost")
    }
}
