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

/// Calls across nodes: a `CallService` per node on an in-memory bus and store, one of them the coordinator
/// (`docs/cluster.md`, "Calls across nodes"); a shared manual clock; the directory simulated (every node's
/// registry holds every device, and every node's service hears of it).
@Suite("Cluster: calls across nodes")
struct ClusterCallTests {
    final class Node: Sendable {
        let number: UInt32
        let registry = SessionRegistry()
        let local = FakeOutbox()
        let outbox: ClusterOutbox
        let coordination: CallCoordination
        let calls: CallService

        init(
            _ number: UInt32, bus: MemoryBus, store: MemoryClusterStore, clock: ManualClock, settings: CallSettings,
            cluster: CallClusterSettings
        ) throws {
            self.number = number
            let metrics = ServerMetrics(loopCount: 1)
            outbox = ClusterOutbox(
                node: number, local: local, bus: bus, metrics: ClusterMetrics(factory: metrics.factory),
                logger: testLogger())
            coordination = CallCoordination(
                node: number, bus: bus, store: store, forwarded: outbox.forwarded, settings: cluster,
                logger: testLogger())
            let pool = try EngineTestDatabase.shared.pool
            let messages = MessageHub(
                registry: registry, outbox: outbox, clock: clock, pool: pool, configuration: MessagingConfiguration(),
                metrics: metrics,
                logger: testLogger(), redeliversResends: true)
            calls = CallService(
                registry: registry, outbox: outbox, clock: clock, settings: settings, pool: pool, messages: messages,
                coordination: coordination, logger: testLogger())
        }

        /// What the bus brings this node (as `ClusterNode.received`, without the directory).
        func received(_ bytes: [UInt8]) {
            switch ClusterWire.decode(bytes) {
            case .deliver(let groups)?: outbox.receive(groups)
            case .callRequest(let c, let u, let s, let id, let op, let command)?:
                calls.received(connection: c, userId: u, sessionId: s, requestId: id, op: op, command: command)
            default: break
            }
        }
    }

    struct Rig {
        let bus = MemoryBus()
        let store: MemoryClusterStore
        let clock = ManualClock()
        let nodes: [Node]
        let a: Int64
        let b: Int64
        let c: Int64

        init(
            nodes count: Int = 3, settings: CallSettings = CallSettings(),
            cluster: CallClusterSettings = CallClusterSettings()
        ) async throws {
            // The nodes claim by hand (no lease timers run here): the lease ends when a test kills its holder.
            store = MemoryClusterStore(bus: bus, leaseExpiresOnTheWallClock: false)
            var nodes: [Node] = []
            for n in 1...count {
                let node = try Node(
                    UInt32(n), bus: bus, store: store, clock: clock, settings: settings, cluster: cluster)
                bus.join(UInt32(n)) { [node] in node.received($0) }
                nodes.append(node)
            }
            self.nodes = nodes
            a = try await EngineTestDatabase.shared.user("Ann")
            b = try await EngineTestDatabase.shared.user("Bob")
            c = try await EngineTestDatabase.shared.user("Cid")
            try await EngineTestDatabase.shared.befriend(a, b)
            try await EngineTestDatabase.shared.befriend(a, c)
            try await EngineTestDatabase.shared.befriend(b, c)
            // Node 1 claims the lease first: it coordinates; the others learn it.
            for node in nodes { node.coordination.claimNow() }
        }

        func node(_ d: Device) -> Node { nodes[Int(d.connection.node) - 1] }

        /// A device comes online on node `n`: the directory tells every node.
        func connect(_ user: Int64, on n: Int, session: Int64 = newSession()) -> Device {
            let d = Device(sessionId: session, userId: user, connection: ConnectionID.next(node: UInt32(n)))
            for node in nodes {
                node.registry.add(d)
                node.calls.connectionOpened(d)
            }
            return d
        }

        /// A connection closes (or its node died): every node detaches it.
        func disconnect(_ d: Device, from nodes: [Node]? = nil) {
            for node in nodes ?? self.nodes {
                node.registry.remove(d.connection, userId: d.userId)
                node.calls.connectionClosed(d)
            }
        }

        /// Node `n` dies: it hears nothing more, and its lease expires.
        func kill(_ n: Int) {
            bus.join(UInt32(n)) { _ in }
            store.expireCoordinator()
        }

        func invite(from d: Device, to callee: Int64, id: Int64) {
            let online = node(d).registry.sessions(ofUser: callee).sorted()
            node(d).calls.perform(
                origin: d, id: .int(id), op: "call.invite",
                command: .invite(
                    alias: nil, caller: d.userId, callerDevice: d.sessionId, callerName: "Caller \(d.userId)",
                    callee: callee, media: "voice",
                    calleeOnlineDevices: online, offer: "v=0 offer"))
        }

        func command(_ d: Device, id: Int64, _ make: (Int64, Int64) -> CallCommand) {
            node(d).calls.perform(origin: d, id: .int(id), op: "call.test", command: make(d.sessionId, d.userId))
        }

        func ok(_ id: Int64, on d: Device) -> [String: Any]? {
            for reply in node(d).local.replies(to: d.connection) {
                if case .raw(.int(id), _, .success(let bytes)) = reply {
                    return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
                }
            }
            return nil
        }

        func error(_ id: Int64, on d: Device) -> ServiceError? {
            for reply in node(d).local.replies(to: d.connection) {
                if case .raw(.int(id), _, .failure(let e)) = reply { return e }
            }
            return nil
        }

        func replyCount(on d: Device) -> Int { node(d).local.replies(to: d.connection).count }

        func events(_ name: String, to d: Device) -> [[String: Any]] { node(d).local.events(name, to: d.connection) }

        /// Invites and waits for the answer; the call id.
        func ring(from d: Device, to callee: Int64, id: Int64) async throws -> String {
            invite(from: d, to: callee, id: id)
            #expect(await eventually { ok(id, on: d) != nil })
            return try #require((ok(id, on: d)?["call"] as? [String: Any])?["call_id"] as? String)
        }

        /// The call's system messages (one per record written).
        func systemMessages(_ callId: String) async throws -> Int64 {
            try await EngineTestDatabase.shared.pool.withConnection { db in
                try db.execute(
                    cached: "SELECT count(*)::bigint FROM messages WHERE kind = 'system' AND position($1 in body) > 0",
                    [.text(callId)]
                ).decodeFirst(Int64.self) ?? 0
            }
        }

        func outcome(_ callId: String) async throws -> String? {
            try await EngineTestDatabase.shared.pool.withConnection { db in
                try db.execute(cached: "SELECT outcome FROM calls WHERE id = $1", [.text(callId)]).decodeFirst(
                    String.self)
            }
        }
    }

    @Test func callerAndCalleeOnOtherNodesTalkAndHangUp() async throws {
        let rig = try await Rig()
        #expect(rig.nodes.allSatisfy { $0.coordination.coordinator == 1 })
        let ann = rig.connect(rig.a, on: 2)
        let bob = rig.connect(rig.b, on: 3)
        let callId = try await rig.ring(from: ann, to: rig.b, id: 1)
        #expect(rig.ok(1, on: ann)?["disposition"] as? String == "ringing")
        #expect(
            await eventually {
                !rig.events("call.ring", to: bob).isEmpty && !rig.events("call.ringing", to: ann).isEmpty
            })
        let ring = try #require(rig.events("call.ring", to: bob).first)
        #expect(ring["call_id"] as? String == callId && ring["offer"] as? String == "v=0 offer")
        #expect((ring["caller"] as? [String: Any])?["display_name"] as? String == "Caller \(rig.a)")
        // The reply is the caller's first item, as on one node.
        if case .reply = rig.node(ann).local.items(to: ann.connection).first {
        } else {
            Issue.record("the reply is not first")
        }

        rig.command(bob, id: 2) { .accept(callId: callId, device: $0, user: $1, answer: "v=0 answer") }
        #expect(await eventually { rig.ok(2, on: bob) != nil && !rig.events("call.accepted", to: ann).isEmpty })
        #expect((rig.ok(2, on: bob)?["call"] as? [String: Any])?["state"] as? String == "active")
        #expect(rig.events("call.accepted", to: ann).first?["answer"] as? String == "v=0 answer")

        // SDP and ICE are relayed both ways.
        let candidate = #"{"candidate":"candidate:1 1 udp 1 10.0.0.1 9 typ host","sdpMid":"0"}"#
        rig.command(ann, id: 3) {
            .signal(callId: callId, device: $0, user: $1, kind: "ice_candidate", payload: candidate)
        }
        rig.command(bob, id: 4) {
            .signal(callId: callId, device: $0, user: $1, kind: "offer", payload: "v=0 renegotiate")
        }
        #expect(
            await eventually {
                !rig.events("call.signal", to: bob).isEmpty && !rig.events("call.signal", to: ann).isEmpty
            })
        #expect(rig.events("call.signal", to: bob).first?["payload"] as? String == candidate)
        #expect(rig.events("call.signal", to: ann).first?["kind"] as? String == "offer")
        #expect(rig.ok(3, on: ann) != nil && rig.ok(4, on: bob) != nil)

        rig.command(ann, id: 5) { .hangup(callId: callId, device: $0, user: $1) }
        #expect(
            await eventually {
                !rig.events("call.ended", to: ann).isEmpty && !rig.events("call.ended", to: bob).isEmpty
            })
        #expect(rig.events("call.ended", to: bob).first?["reason"] as? String == "hangup")
        #expect(try await rig.outcome(callId) == "completed")
        // The takeover's system message goes through the message writer on a 3-connection pool that every engine
        // suite shares: on a loaded 2-core machine it can take a while (one CI run missed a 10 s window).
        var seen: Int64?
        #expect(
            await eventuallyAsync(30) {
                seen = try? await rig.systemMessages(callId); return seen == 1
            }, "system messages: \(String(describing: seen))")
        // Every forwarded request was answered, once: past the reply timeout nothing more comes.
        #expect(rig.nodes.allSatisfy { $0.coordination.forwarded.count == 0 })
        rig.clock.advance(by: 6)
        for node in rig.nodes { await settle(node.calls.queue) }
        #expect(rig.replyCount(on: ann) == 3 && rig.replyCount(on: bob) == 2)
    }

    @Test func declinedAndCancelledAcrossNodes() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.a, on: 2)
        let bob = rig.connect(rig.b, on: 3)
        let first = try await rig.ring(from: ann, to: rig.b, id: 1)
        rig.command(bob, id: 2) { .decline(callId: first, device: $0, user: $1) }
        #expect(await eventually { rig.events("call.ended", to: ann).count == 1 })
        #expect(rig.events("call.ended", to: ann).first?["reason"] as? String == "declined")
        #expect(rig.ok(2, on: bob) != nil)

        let second = try await rig.ring(from: ann, to: rig.b, id: 3)
        rig.command(ann, id: 4) { .cancel(callId: second, device: $0, user: $1) }
        #expect(await eventually { rig.events("call.ended", to: bob).count == 2 })
        #expect(rig.events("call.ended", to: bob).last?["reason"] as? String == "cancelled")
        #expect(try await rig.outcome(first) == "declined")
        #expect(try await rig.outcome(second) == "cancelled")
        // A call that is no longer there: the coordinator's error comes back across the bus.
        rig.command(bob, id: 5) { .accept(callId: second, device: $0, user: $1, answer: nil) }
        #expect(await eventually { rig.error(5, on: bob) != nil })
        #expect(rig.error(5, on: bob)?.code == .invalidState || rig.error(5, on: bob)?.code == .notFound)
    }

    @Test func aRingTimesOutOnceForTheWholeCluster() async throws {
        var settings = CallSettings()
        settings.ringTimeout = 30
        let rig = try await Rig(settings: settings)
        let ann = rig.connect(rig.a, on: 2)
        let bob = rig.connect(rig.b, on: 3)
        let callId = try await rig.ring(from: ann, to: rig.b, id: 1)
        rig.clock.advance(by: 29.9)
        for node in rig.nodes { await settle(node.calls.queue) }
        #expect(rig.events("call.ended", to: ann).isEmpty)
        rig.clock.advance(by: 0.2)
        #expect(
            await eventually {
                !rig.events("call.ended", to: ann).isEmpty && !rig.events("call.ended", to: bob).isEmpty
            })
        #expect(rig.events("call.ended", to: ann).first?["reason"] as? String == "timeout")
        // The takeover's system message goes through the message writer on a 3-connection pool that every engine
        // suite shares: on a loaded 2-core machine it can take a while (one CI run missed a 10 s window).
        var seen: Int64?
        #expect(
            await eventuallyAsync(30) {
                seen = try? await rig.systemMessages(callId); return seen == 1
            }, "system messages: \(String(describing: seen))")
        #expect(try await rig.outcome(callId) == "missed")
        rig.clock.advance(by: 200)
        for node in rig.nodes { await settle(node.calls.queue) }
        #expect(rig.events("call.ended", to: ann).count == 1 && rig.events("call.ended", to: bob).count == 1)
    }

    @Test func busyAndAlreadyInCallAcrossNodes() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.a, on: 2)
        let bob = rig.connect(rig.b, on: 3)
        let cid = rig.connect(rig.c, on: 1)
        let callId = try await rig.ring(from: ann, to: rig.b, id: 1)
        rig.command(bob, id: 2) { .accept(callId: callId, device: $0, user: $1, answer: "v=0 answer") }
        #expect(await eventually { rig.ok(2, on: bob) != nil })
        // Cid (on the coordinator) calls Bob, who is in a call on node 3: busy.
        _ = try await rig.ring(from: cid, to: rig.b, id: 3)
        #expect(rig.ok(3, on: cid)?["disposition"] as? String == "busy")
        // Ann (node 2) is in a call: her invite to Cid is refused.
        rig.invite(from: ann, to: rig.c, id: 4)
        #expect(await eventually { rig.error(4, on: ann) != nil })
        #expect(rig.error(4, on: ann)?.code == .alreadyInCall)
    }

    @Test func glareAcrossNodes() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.a, on: 2)
        let bob = rig.connect(rig.b, on: 3)
        let first = try await rig.ring(from: ann, to: rig.b, id: 1)
        rig.invite(from: bob, to: rig.a, id: 2)
        #expect(await eventually { rig.ok(2, on: bob) != nil })
        let glare = try #require(rig.ok(2, on: bob))
        #expect(glare["disposition"] as? String == "joined")
        #expect((glare["call"] as? [String: Any])?["call_id"] as? String == first)
        #expect((glare["call"] as? [String: Any])?["offer"] as? String == "v=0 offer")
        #expect(await eventually { rig.events("call.accepted", to: ann).first?["call_id"] as? String == first })
    }

    @Test func answeredElsewhereWithTheCalleeOnTwoNodes() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.a, on: 2)
        let bobHere = rig.connect(rig.b, on: 3)
        let bobThere = rig.connect(rig.b, on: 1)
        let callId = try await rig.ring(from: ann, to: rig.b, id: 1)
        #expect(
            await eventually {
                !rig.events("call.ring", to: bobHere).isEmpty && !rig.events("call.ring", to: bobThere).isEmpty
            })
        #expect(await eventually { rig.events("call.ringing", to: ann).first?["devices"] as? Int == 2 })
        rig.command(bobThere, id: 2) { .accept(callId: callId, device: $0, user: $1, answer: "v=0 answer") }
        #expect(await eventually { !rig.events("call.answered_elsewhere", to: bobHere).isEmpty })
        #expect(rig.events("call.answered_elsewhere", to: bobHere).first?["call_id"] as? String == callId)
        #expect(await eventually { !rig.events("call.accepted", to: ann).isEmpty })
        // The device that answered elsewhere can no longer accept.
        rig.command(bobHere, id: 3) { .accept(callId: callId, device: $0, user: $1, answer: nil) }
        #expect(await eventually { rig.error(3, on: bobHere) != nil })
    }

    @Test func aDeviceOnAnotherNodeDropsAndTheCallEndsAfterItsGrace() async throws {
        var settings = CallSettings()
        settings.reconnectGrace = 10
        let rig = try await Rig(settings: settings)
        let ann = rig.connect(rig.a, on: 2)
        let bob = rig.connect(rig.b, on: 3)
        let callId = try await rig.ring(from: ann, to: rig.b, id: 1)
        rig.command(bob, id: 2) { .accept(callId: callId, device: $0, user: $1, answer: nil) }
        #expect(await eventually { rig.ok(2, on: bob) != nil })
        // Node 3's device is detached everywhere (as the directory does for a closed connection or a dead node).
        rig.disconnect(bob)
        #expect(
            await eventually { rig.events("call.peer_connection_lost", to: ann).first?["grace_ms"] as? Int == 10_000 })
        rig.clock.advance(by: 10.1)
        #expect(await eventually { rig.events("call.ended", to: ann).first?["reason"] as? String == "connection_lost" })
    }

    @Test func theCoordinatorDiesMidCallAndTheSurvivorEndsItOnce() async throws {
        let rig = try await Rig()
        let ann = rig.connect(rig.a, on: 2)
        let bob = rig.connect(rig.b, on: 3)
        let callId = try await rig.ring(from: ann, to: rig.b, id: 1)
        rig.command(bob, id: 2) { .accept(callId: callId, device: $0, user: $1, answer: nil) }
        #expect(await eventually { rig.ok(2, on: bob) != nil })
        // The summary in the store names the call (the coordinator writes it on each change).
        #expect(
            await eventually {
                ((try? rig.store.liveCalls()) ?? nil).flatMap {
                    try? JSONDecoder().decode([LiveCallSummary].self, from: Data($0))
                }?.first?.callId == callId
            })
        await settle(rig.nodes[0].coordination.queue)

        rig.kill(1)
        rig.nodes[1].coordination.claimNow()
        rig.nodes[2].coordination.claimNow()
        #expect(rig.nodes[1].coordination.coordinator == 2 && rig.nodes[2].coordination.coordinator == 2)
        #expect(
            await eventually {
                !rig.events("call.ended", to: ann).isEmpty && !rig.events("call.ended", to: bob).isEmpty
            })
        #expect(rig.events("call.ended", to: ann).first?["reason"] as? String == "server_failure")
        #expect(rig.events("call.ended", to: bob).first?["call_id"] as? String == callId)
        #expect(try await rig.outcome(callId) == "server_failure")
        // The takeover's system message goes through the message writer on a 3-connection pool that every engine
        // suite shares: on a loaded 2-core machine it can take a while (one CI run missed a 10 s window).
        var seen: Int64?
        #expect(
            await eventuallyAsync(30) {
                seen = try? await rig.systemMessages(callId); return seen == 1
            }, "system messages: \(String(describing: seen))")
        // Claims go on: the call is not ended twice, and the summary is empty now.
        rig.nodes[1].coordination.claimNow()
        rig.nodes[2].coordination.claimNow()
        await settle(rig.nodes[1].calls.queue)
        await settle(rig.nodes[1].coordination.queue)
        #expect(rig.events("call.ended", to: ann).count == 1 && rig.events("call.ended", to: bob).count == 1)
        #expect((try rig.store.liveCalls()).map { Array($0) } == Array("[]".utf8))

        // The new coordinator takes calls: node 3 forwards to node 2.
        let next = try await rig.ring(from: bob, to: rig.a, id: 3)
        #expect(next != callId)
        #expect(await eventually { !rig.events("call.ring", to: ann).isEmpty })
    }

    /// A coordinator cut off from the store long enough for another node to take the lease over resigns at its
    /// next claim and forgets its calls: the ring timeout does not fire a second time there.
    @Test func aCoordinatorThatLostTheLeaseResigns() async throws {
        var settings = CallSettings()
        settings.ringTimeout = 30
        let rig = try await Rig(settings: settings)
        let ann = rig.connect(rig.a, on: 2)
        let bob = rig.connect(rig.b, on: 3)
        let callId = try await rig.ring(from: ann, to: rig.b, id: 1)
        #expect(await eventually { ((try? rig.store.liveCalls()) ?? nil).map { $0 != Array("[]".utf8) } == true })
        await settle(rig.nodes[0].coordination.queue)
        rig.store.expireCoordinator()
        rig.nodes[1].coordination.claimNow()
        #expect(await eventually { rig.events("call.ended", to: bob).first?["reason"] as? String == "server_failure" })
        rig.nodes[0].coordination.claimNow()
        rig.nodes[2].coordination.claimNow()
        #expect(rig.nodes.allSatisfy { $0.coordination.coordinator == 2 })
        await settle(rig.nodes[0].calls.queue)
        rig.clock.advance(by: 31)
        for node in rig.nodes { await settle(node.calls.queue) }
        #expect(rig.events("call.ended", to: ann).count == 1 && rig.events("call.ended", to: bob).count == 1)
        // The takeover's system message goes through the message writer on a 3-connection pool that every engine
        // suite shares: on a loaded 2-core machine it can take a while (one CI run missed a 10 s window).
        var seen: Int64?
        #expect(
            await eventuallyAsync(30) {
                seen = try? await rig.systemMessages(callId); return seen == 1
            }, "system messages: \(String(describing: seen))")
        #expect(try await rig.outcome(callId) == "server_failure")
        // The store lost everything and came back: the coordinator writes its summary again.
        let again = try await rig.ring(from: bob, to: rig.a, id: 2)
        await settle(rig.nodes[1].calls.queue)
        await settle(rig.nodes[1].coordination.queue)
        rig.store.failing.store(true, ordering: .relaxed)
        rig.nodes[1].coordination.claimNow()
        rig.store.wipe()
        rig.store.failing.store(false, ordering: .relaxed)
        rig.nodes[1].coordination.claimNow()
        #expect(
            await eventually {
                ((try? rig.store.liveCalls()) ?? nil).flatMap {
                    try? JSONDecoder().decode([LiveCallSummary].self, from: Data($0))
                }?.first?.callId == again
            })
    }

    @Test func aRequestToADeadCoordinatorIsAnsweredUnavailable() async throws {
        var cluster = CallClusterSettings()
        cluster.replyTimeout = 3
        cluster.retryAfterMilliseconds = 1500
        let rig = try await Rig(cluster: cluster)
        let ann = rig.connect(rig.a, on: 2)
        _ = rig.connect(rig.b, on: 3)
        // Node 1 dies; node 2 has not noticed yet (no claim since).
        rig.kill(1)
        rig.invite(from: ann, to: rig.b, id: 1)
        await settle(rig.nodes[1].calls.queue)
        rig.clock.advance(by: 1)
        rig.command(ann, id: 2) { .turn(callId: nil, user: $1) }
        await settle(rig.nodes[1].calls.queue)
        #expect(rig.replyCount(on: ann) == 0)
        rig.clock.advance(by: 1.9)
        await settle(rig.nodes[1].calls.queue)
        #expect(rig.replyCount(on: ann) == 0)
        rig.clock.advance(by: 0.2)
        #expect(await eventually { rig.error(1, on: ann) != nil })
        #expect(rig.error(1, on: ann)?.code == .unavailable)
        #expect(rig.error(1, on: ann)?.extra["retry_after_ms"] == 1500)
        #expect(rig.nodes[1].coordination.forwarded.count == 1)
        #expect(rig.replyCount(on: ann) == 1)
        // The second, sent a second later, a second later.
        rig.clock.advance(by: 1)
        #expect(await eventually { rig.error(2, on: ann)?.code == .unavailable })
        #expect(rig.nodes[1].coordination.forwarded.count == 0)
        #expect(rig.replyCount(on: ann) == 2)
    }

    @Test func aLateAnswerAfterUnavailableIsDropped() async throws {
        let rig = try await Rig(nodes: 2)
        let ann = rig.connect(rig.a, on: 2)
        let id = RequestID.int(9)
        // An answer for a request node 2 is not waiting for (it answered unavailable already) is dropped; one it
        // waits for is delivered once.
        let late = ClusterWire.Group(
            item: .reply(
                requestId: ForwardedReplyCodec.encode(id), op: "call.test", success: true, body: Array("{}".utf8)),
            connections: [ann.connection.rawValue])
        rig.nodes[1].outbox.receive([late])
        #expect(rig.replyCount(on: ann) == 0)
        rig.nodes[1].outbox.forwarded.add(ann.connection, id)
        rig.nodes[1].outbox.receive([late, late])
        #expect(rig.replyCount(on: ann) == 1)
    }

    @Test func wireCallMessagesRoundTrip() {
        let error = ForwardedReplyCodec.encode(ServiceError(.unavailable, "retry", extra: ["retry_after_ms": 5]))
        #expect(ForwardedReplyCodec.error(error) == ServiceError(.unavailable, "retry", extra: ["retry_after_ms": 5]))
        #expect(ForwardedReplyCodec.requestID(ForwardedReplyCodec.encode(.string("x"))) == .string("x"))
        let command = CallCommand.signal(callId: "c", device: 1, user: 2, kind: "offer", payload: "v=0")
        #expect(CallCommand.decode(command.encoded()) == command)
        #expect(CallCommand.decode(Array("{\"nope\":{}}".utf8)) == nil)
        let messages: [ClusterWire] = [
            .callRequest(
                connection: 1 << 40, userId: 5, sessionId: -1, requestId: Array("7".utf8), op: "call.invite",
                command: command.encoded()),
            .deliver([
                .init(
                    item: .reply(requestId: Array("\"a\"".utf8), op: "call.accept", success: false, body: error),
                    connections: [3])
            ]),
        ]
        for m in messages {
            let bytes = m.encoded()
            #expect(ClusterWire.decode(bytes) == m)
            for cut in 0..<bytes.count { #expect(ClusterWire.decode(Array(bytes.prefix(cut))) == nil) }
            #expect(ClusterWire.decode(bytes + [0]) == nil)
        }
        // The fuzz seeds of these kinds decode and encode back to their bytes.
        let seeds = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../fuzz/seeds/protocol")
        for name in ["cluster-call-request.bin", "cluster-call-reply.bin"] {
            let bytes = (try? Data(contentsOf: seeds.appendingPathComponent(name))).map { Array($0) } ?? []
            #expect(ClusterWire.decode(bytes)?.encoded() == bytes, "\(name)")
        }
        if case .callRequest(_, _, _, _, _, let command)? = ClusterWire.decode(
            (try? Data(contentsOf: seeds.appendingPathComponent("cluster-call-request.bin"))).map { Array($0) } ?? [])
        {
            #expect(CallCommand.decode(command) == .accept(callId: "c1", device: 7, user: 5, answer: "v=0"))
        } else {
            Issue.record("the call request seed does not decode")
        }
    }
}

/// Waits (bounded) on an asynchronous condition.
func eventuallyAsync(_ timeout: Double = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while await !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
}
