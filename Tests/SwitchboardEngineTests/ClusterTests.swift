//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Synchronization
import Testing

@testable import SwitchboardServer

@Suite("Cluster: outbox and directory")
struct ClusterTests {
    @Test func connectionIDsCarryTheirNode() {
        let a = ConnectionID.next(node: 7)
        let b = ConnectionID.next(node: 7)
        #expect(a.node == 7 && b.node == 7 && a != b)
        #expect(ConnectionID.next().node == 0)
        #expect(ConnectionID.next(node: (1 << 24) - 1).node == (1 << 24) - 1)
    }

    @Test func wireMessagesRoundTripAndRefuseDamage() {
        let messages: [ClusterWire] = [
            .deliver([
                .init(
                    item: .message(conversationId: 5, seq: 9, payload: Array(#"{"ev":"message"}"#.utf8)),
                    connections: [1, 2, 3]),
                .init(item: .ephemeral(Array("p".utf8), source: "p:7"), connections: [UInt64.max]),
                .init(item: .event([]), connections: []), .init(item: .revoke, connections: [4]),
            ]),
            .directory(node: 3, seq: 1, [.attached(connection: 9, userId: -1, sessionId: Int64.max)]),
            .directory(
                node: 3, seq: 2,
                [.detached(connection: 9, userId: 1), .status(connection: 9, userId: 1, status: "away"), .sync]),
            .notice(node: 2, .friendship(4, 5, friends: true)), .notice(node: 2, .friendship(4, 5, friends: false)),
            .notice(node: 1, .renamed(userId: 4, name: "Zoë 👍🏽")), .notice(node: 3, .revoked(sessionId: 8, userId: 9)),
            .callRequest(
                connection: 1 << 40, userId: 2, sessionId: 3, requestId: Array("1".utf8), op: "call.hangup",
                command: Array("{}".utf8)),
            .deliver([
                .init(
                    item: .reply(requestId: Array("1".utf8), op: "call.hangup", success: true, body: Array("{}".utf8)),
                    connections: [1 << 40])
            ]),
        ]
        for m in messages {
            let bytes = m.encoded()
            #expect(ClusterWire.decode(bytes) == m)
            for cut in 0..<bytes.count { #expect(ClusterWire.decode(Array(bytes.prefix(cut))) == nil) }
            #expect(ClusterWire.decode(bytes + [0]) == nil)
        }
        #expect(ClusterWire.decode([2, 1, 0, 0, 0, 0]) == nil)  // another version
    }

    /// Items for other nodes go out as one bus message per node and batch, each item once with its
    /// connections there; the receiving node posts them in order, one stored-message object for all.
    @Test func aFanOutCostsEachOtherNodeOneBusMessage() {
        let bus = MemoryBus()
        let metrics = ClusterMetrics(factory: ServerMetrics(loopCount: 1).factory)
        let locals = (1...3).map { _ in FakeOutbox() }
        let outboxes = (1...3).map { n in
            ClusterOutbox(node: UInt32(n), local: locals[n - 1], bus: bus, metrics: metrics, logger: testLogger())
        }
        for (n, outbox) in outboxes.enumerated() {
            bus.join(UInt32(n + 1)) { bytes in
                guard case .deliver(let groups)? = ClusterWire.decode(bytes) else { return }
                outbox.receive(groups)
            }
        }
        let members = (1...3).flatMap { n in (0..<300).map { _ in ConnectionID.next(node: UInt32(n)) } }
        let message = OutboundMessage(conversationId: 1, seq: 42, payload: Array(#"{"ev":"message","seq":42}"#.utf8))
        var batch = OutboxBatch()
        batch.add(.message(message), to: members)
        batch.add(.event(Array(#"{"ev":"x"}"#.utf8)), to: members.suffix(2))
        outboxes[0].post(batch)
        #expect(bus.sent.withLock { $0 } == [2: 1, 3: 1])
        #expect(locals[0].delivered.count == 300)
        #expect(locals[1].delivered.count == 300)
        #expect(locals[2].delivered.count == 302)
        // One object (one encoded frame) for every recipient of a node.
        let objects = Set(
            locals[2].delivered.compactMap { if case .message(let m) = $0.1 { ObjectIdentifier(m) } else { nil } })
        #expect(objects.count == 1)
        // Each connection's order is kept: the message, then the event.
        let last = members.last!
        let items = locals[2].items(to: last)
        #expect(items.count == 2)
        if case .message(let m) = items.first { #expect(m.seq == 42) } else { Issue.record("message not first") }
        if case .event = items.last {} else { Issue.record("event not second") }
    }

    private func directory(_ node: UInt32, _ store: MemoryClusterStore, _ log: DirectoryLog) -> ClusterDirectory {
        let metrics = ClusterMetrics(factory: ServerMetrics(loopCount: 1).factory)
        let d = ClusterDirectory(
            node: node, store: store, heartbeatInterval: 0.02, heartbeatTTL: 0.3, metrics: metrics, logger: testLogger()
        )
        d.delegate = log
        return d
    }

    /// A directory delegate that records like `DirectoryLog` and answers each applied batch on the bus, as
    /// `ClusterNode` does.
    final class AnsweringLog: ClusterDirectoryDelegate, Sendable {
        let log = DirectoryLog()
        let node: UInt32
        let bus: MemoryBus
        init(node: UInt32, bus: MemoryBus) {
            self.node = node
            self.bus = bus
        }
        func remoteDeviceAttached(_ device: Device, status: String) { log.remoteDeviceAttached(device, status: status) }
        func remoteDeviceDetached(_ device: Device) { log.remoteDeviceDetached(device) }
        func remoteDeviceStatus(_ device: Device, status: String) { log.remoteDeviceStatus(device, status: status) }
        func remoteChangesEnd() {}
        func busRecovered() {}
        func silenceOutlived() {}
        func remoteApplied(_ other: UInt32, seq: UInt64) {
            bus.send(ClusterWire.directoryApplied(node: node, seq: seq).encoded(), to: other)
        }
    }

    /// Three directories on one bus whose node 3 can be slowed down (its bus messages held back) or silenced.
    final class AnsweringRig: Sendable {
        let bus = MemoryBus()
        let directories: [UInt32: ClusterDirectory]
        let logs: [UInt32: DirectoryLog]
        /// The directories' delegates (a directory holds its delegate weakly).
        let delegates: [AnsweringLog]
        let holdingThree = Atomic<Bool>(false)
        let deafThree = Atomic<Bool>(false)
        let heldForThree = Mutex<[[UInt8]]>([])

        init(applyTimeout: Double) {
            let store = MemoryClusterStore(bus: bus)
            let metrics = ClusterMetrics(factory: ServerMetrics(loopCount: 1).factory)
            var directories: [UInt32: ClusterDirectory] = [:]
            var logs: [UInt32: DirectoryLog] = [:]
            var delegates: [AnsweringLog] = []
            for n in UInt32(1)...3 {
                let answering = AnsweringLog(node: n, bus: bus)
                delegates.append(answering)
                let d = ClusterDirectory(
                    node: n, store: store, heartbeatInterval: 0.02, heartbeatTTL: 30, metrics: metrics,
                    logger: testLogger(),
                    applyTimeout: applyTimeout)
                d.delegate = answering
                directories[n] = d
                logs[n] = answering.log
            }
            self.directories = directories
            self.logs = logs
            self.delegates = delegates
            for n in UInt32(1)...3 {
                let d = directories[n]!
                bus.join(n) { [self] bytes in
                    if n == 3 {
                        if deafThree.load(ordering: .relaxed) { return }
                        if holdingThree.load(ordering: .relaxed) {
                            heldForThree.withLock { $0.append(bytes) }
                            return
                        }
                    }
                    Self.route(bytes, to: d)
                }
            }
        }

        static func route(_ bytes: [UInt8], to d: ClusterDirectory) {
            switch ClusterWire.decode(bytes) {
            case .directory(let from, let seq, let changes)?: d.received(node: from, seq: seq, changes: changes)
            case .directoryApplied(let from, let seq)?: d.applied(by: from, seq: seq)
            default: break
            }
        }

        /// Starts the nodes and waits until each knows the other two.
        func start() async -> Bool {
            for d in directories.values { d.start() }
            let ready = await eventually(30) { directories.values.allSatisfy { $0.liveNodeCount == 3 } }
            // A heartbeat loads the snapshots of the nodes it finds one by one, and the count moves with the first:
            // each directory's queue is let finish the block it was in, so every node has loaded the other two.
            for d in directories.values { await settle(d.queue) }
            return ready
        }

        func stop() { for d in directories.values { d.stop() } }

        /// Node 3 gets what was held back for it.
        func releaseThree() {
            holdingThree.store(false, ordering: .relaxed)
            for bytes in heldForThree.withLock({ $0 }) { Self.route(bytes, to: directories[3]!) }
        }
    }

    /// A held `authenticate` reply (the `published` callback) runs only once every other live node has applied the
    /// device's change: when it runs, each of them can address the device; a slow node holds it until it caught up.
    @Test func aHeldReplyWaitsUntilEveryLiveNodeHasTheDevice() async throws {
        // A timeout far beyond any wait here (a loaded machine must not turn a wait into a timeout).
        let rig = AnsweringRig(applyTimeout: 60)
        defer { rig.stop() }
        #expect(await rig.start())
        let (one, two, three) = (rig.directories[1]!, rig.logs[2]!, rig.logs[3]!)

        let ann = Device(sessionId: 10, userId: 100, connection: ConnectionID.next(node: 1))
        let seenAtReply = Mutex<(Bool, Bool)?>(nil)
        one.localAttached(ann) {
            seenAtReply.withLock { $0 = (two.status(ann.connection) != nil, three.status(ann.connection) != nil) }
        }
        #expect(await eventually(30) { seenAtReply.withLock { $0 } != nil })
        #expect(seenAtReply.withLock { $0 } ?? (false, false) == (true, true))

        // Node 3 is slow: the reply waits for it, and runs once it has caught up.
        rig.holdingThree.store(true, ordering: .relaxed)
        let bob = Device(sessionId: 11, userId: 101, connection: ConnectionID.next(node: 1))
        let bobReplied = Atomic<Bool>(false)
        one.localAttached(bob) { bobReplied.store(true, ordering: .relaxed) }
        #expect(await eventually(30) { two.status(bob.connection) != nil })
        // Barrier instead of a wait: node 2 acknowledges the change at the end of the queue block that recorded it
        // (a synchronous bus), node 1 takes the acknowledgement on its queue, and a reply released by it would run
        // there: once both queues finished what they had, the reply has run if node 2's word was enough.
        await settle(rig.directories[2]!.queue)
        await settle(one.queue)
        let early = bobReplied.load(ordering: .relaxed)
        #expect(!early, "replied before node 3 had the device")
        rig.releaseThree()
        #expect(await eventually(30) { bobReplied.load(ordering: .relaxed) })
        #expect(three.status(bob.connection) != nil)
    }

    /// A node that never answers holds a reply no longer than the apply timeout.
    @Test func aSilentNodeHoldsAReplyOnlyUntilTheApplyTimeout() async throws {
        let rig = AnsweringRig(applyTimeout: 0.5)
        defer { rig.stop() }
        #expect(await rig.start())
        rig.deafThree.store(true, ordering: .relaxed)
        let cy = Device(sessionId: 12, userId: 102, connection: ConnectionID.next(node: 1))
        let cyReplied = Atomic<Bool>(false)
        let started = Date()
        rig.directories[1]!.localAttached(cy) { cyReplied.store(true, ordering: .relaxed) }
        #expect(await eventually(30) { cyReplied.load(ordering: .relaxed) })
        #expect(Date().timeIntervalSince(started) >= 0.45)
        let (two, three) = (rig.logs[2]!, rig.logs[3]!)
        #expect(await eventually(30) { two.status(cy.connection) != nil })
        #expect(three.status(cy.connection) == nil)
    }

    /// Devices of one node appear on the others in order; a lost change, a late joiner and a dead node are
    /// repaired from snapshots and heartbeats; Redis lost and back makes the nodes rewrite and reload.
    @Test func theDirectoryReplicatesRepairsAndExpires() async throws {
        let bus = MemoryBus()
        let store = MemoryClusterStore(bus: bus)
        let logA = DirectoryLog()
        let logB = DirectoryLog()
        let a = directory(1, store, logA)
        let b = directory(2, store, logB)
        for (n, d) in [(UInt32(1), a), (2, b)] {
            bus.join(n) { bytes in
                if case .directory(let from, let seq, let changes)? = ClusterWire.decode(bytes) {
                    d.received(node: from, seq: seq, changes: changes)
                }
            }
        }
        a.start()
        b.start()
        let ann = Device(sessionId: 10, userId: 100, connection: ConnectionID.next(node: 1))
        let bob = Device(sessionId: 11, userId: 101, connection: ConnectionID.next(node: 1))
        a.localAttached(ann)
        a.localAttached(bob)
        #expect(await eventually { logB.count == 2 })
        a.localStatus(ann, status: "away")
        #expect(await eventually { logB.status(ann.connection) == "away" })
        #expect(logA.count == 0, "a node does not list its own devices as remote")

        // A lost message: the next one shows the gap and B reloads A's snapshot.
        bus.dropping.store(true, ordering: .relaxed)
        a.localDetached(bob)
        // Sent (and lost) once it is recorded: changes go out in batches.
        #expect(await eventually { (try? store.snapshot(node: 1).devices.count) == 1 })
        bus.dropping.store(false, ordering: .relaxed)
        let cid = Device(sessionId: 12, userId: 102, connection: ConnectionID.next(node: 1))
        a.localAttached(cid)
        #expect(
            await eventually {
                logB.count == 2 && logB.status(bob.connection) == nil && logB.status(cid.connection) == "online"
            })

        // A late joiner loads the snapshot of every live node.
        let logC = DirectoryLog()
        let c = directory(3, store, logC)
        bus.join(3) { bytes in
            if case .directory(let from, let seq, let changes)? = ClusterWire.decode(bytes) {
                c.received(node: from, seq: seq, changes: changes)
            }
        }
        c.start()
        #expect(await eventually { logC.count == 2 && logC.status(ann.connection) == "away" })

        // Redis down then back, empty (restarted): every node writes its directory again and reloads the others;
        // each is told to have its clients reconnect.
        // Down until each node's heartbeat has met it (and its directory, on its queue, marked the store down).
        store.refusedHeartbeats.withLock { $0 = [] }
        store.failing.store(true, ordering: .relaxed)
        #expect(await eventually { store.refusedHeartbeats.withLock { $0 } == [1, 2, 3] })
        for d in [a, b, c] { await settle(d.queue) }
        store.wipe()
        store.failing.store(false, ordering: .relaxed)
        #expect(
            await eventually {
                logB.recoveries.load(ordering: .relaxed) >= 1 && logC.recoveries.load(ordering: .relaxed) >= 1
            })
        #expect(await eventually { (try? store.snapshot(node: 1).devices.count) == 2 })
        #expect(await eventually { logB.count == 2 && logC.count == 2 })

        // A pauses longer than its TTL (its heartbeats stop, as under SIGSTOP): the others expire it and detach its
        // devices; when it runs again it tells its clients to reconnect, and the others have its devices again.
        // (Counted from here: on a loaded machine a stall of A's queue past the 0.3 s TTL before this point is a
        // silence too, seen once with the load average at 9 on two cores.)
        let silencesBefore = logA.silences.load(ordering: .relaxed)
        a.queue.suspend()
        #expect(await eventually { logB.count == 0 && logC.count == 0 })
        a.queue.resume()
        #expect(await eventually { logA.silences.load(ordering: .relaxed) > silencesBefore })
        #expect(await eventually { logB.count == 2 && logC.count == 2 })

        // A stops (killed): its heartbeat expires and the others detach its devices.
        a.stop()
        #expect(await eventually { logB.count == 0 && logC.count == 0 })
        #expect(await eventually { (try? store.nodes().live) == [2, 3] })
        b.stop()
        c.stop()
    }
}
