//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol
import Testing

@testable import SwitchboardServer

/// Acknowledged means delivered or owed a resync (issue 37): a node's own part of a batch (its senders'
/// acknowledgements) leaves only once the bus took the batch's publishes, in the order batches were posted; a
/// publish the bus refused owes its recipients on the other node a reconnect, sent at the next publish it takes.
@Suite("Cluster outbox: acknowledgements after the publish")
struct ClusterOutboxConfirmationTests {
    /// Three nodes on one bus in memory, each outbox delivering what it receives to its node's fake outbox.
    struct Rig {
        let bus = MemoryBus()
        let locals = (1...3).map { _ in FakeOutbox() }
        let outboxes: [ClusterOutbox]

        init() {
            let metrics = ClusterMetrics(factory: ServerMetrics(loopCount: 1).factory)
            outboxes = (1...3).map { [bus, locals] n in
                ClusterOutbox(node: UInt32(n), local: locals[n - 1], bus: bus, metrics: metrics, logger: testLogger())
            }
            for (n, outbox) in outboxes.enumerated() {
                bus.join(UInt32(n + 1)) { bytes in
                    guard case .deliver(let groups)? = ClusterWire.decode(bytes) else { return }
                    outbox.receive(groups)
                }
            }
        }

        /// A batch from node 1: message `seq` to `members`, and an acknowledgement (an event here) to `sender`.
        func batch(_ seq: Int64, to members: [ConnectionID], ack sender: ConnectionID) -> OutboxBatch {
            var batch = OutboxBatch()
            batch.add(
                .message(OutboundMessage(conversationId: 1, seq: seq, payload: Array(#"{"seq":\#(seq)}"#.utf8))),
                to: members)
            batch.add(.event(Array(#"{"ack":\#(seq)}"#.utf8)), to: sender)
            return batch
        }
    }

    static func acks(_ items: [OutboxItem]) -> [String] {
        items.compactMap { if case .event(let bytes) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil } }
    }

    @Test func theSendersPartWaitsForThePublishAndKeepsItsOrder() {
        let rig = Rig()
        let sender = ConnectionID.next(node: 1)
        let remote = ConnectionID.next(node: 2)
        rig.bus.holding.store(true, ordering: .relaxed)
        rig.outboxes[0].post(rig.batch(1, to: [remote], ack: sender))
        // Delivered on node 2 (the bus carried it), but Redis has not answered: no acknowledgement yet.
        #expect(rig.locals[1].items(to: remote).count == 1)
        #expect(rig.locals[0].items(to: sender).isEmpty)
        // A later batch with nothing for other nodes waits behind it (order), then both leave in order.
        var local = OutboxBatch()
        local.add(.event(Array(#"{"ack":2}"#.utf8)), to: sender)
        rig.outboxes[0].post(local)
        #expect(rig.locals[0].items(to: sender).isEmpty)
        #expect(rig.bus.heldCount == 1)
        rig.bus.answerHeld()
        #expect(Self.acks(rig.locals[0].items(to: sender)) == [#"{"ack":1}"#, #"{"ack":2}"#])
        // With nothing waiting, a local-only batch leaves at once.
        rig.bus.holding.store(false, ordering: .relaxed)
        rig.outboxes[0].post(local)
        #expect(rig.locals[0].items(to: sender).count == 3)
    }

    @Test func aRefusedPublishAcknowledgesAndOwesItsRecipientsAReconnect() {
        let rig = Rig()
        let sender = ConnectionID.next(node: 1)
        let missed = [ConnectionID.next(node: 2), ConnectionID.next(node: 2)]
        let other = ConnectionID.next(node: 3)
        rig.bus.refusing.store(true, ordering: .relaxed)
        rig.outboxes[0].post(rig.batch(1, to: missed, ack: sender))
        // The message is durable: acknowledged; its recipients on node 2 got nothing and are owed a reconnect.
        #expect(Self.acks(rig.locals[0].items(to: sender)) == [#"{"ack":1}"#])
        #expect(rig.locals[1].delivered.isEmpty)
        #expect(rig.outboxes[0].owedCount == 2)
        // The next publish the bus takes (here to node 3) sends node 2 the reconnect for exactly those two.
        rig.bus.refusing.store(false, ordering: .relaxed)
        rig.outboxes[0].post(rig.batch(2, to: [other], ack: sender))
        #expect(rig.outboxes[0].owedCount == 0)
        for connection in missed {
            let items = rig.locals[1].items(to: connection)
            #expect(items.count == 1)
            if case .reconnect? = items.first {} else { Issue.record("no reconnect for \(connection)") }
        }
        #expect(rig.locals[2].items(to: other).count == 1)
        #expect(Self.acks(rig.locals[0].items(to: sender)) == [#"{"ack":1}"#, #"{"ack":2}"#])
    }

    @Test func aReconnectTheBusRefusesStaysOwedUntilTheBusRecovers() {
        let rig = Rig()
        let sender = ConnectionID.next(node: 1)
        let missed = ConnectionID.next(node: 2)
        rig.bus.refusing.store(true, ordering: .relaxed)
        rig.outboxes[0].post(rig.batch(1, to: [missed], ack: sender))
        rig.outboxes[0].flushOwed()  // the bus still refuses: owed again
        #expect(rig.outboxes[0].owedCount == 1)
        rig.bus.refusing.store(false, ordering: .relaxed)
        rig.outboxes[0].flushOwed()  // as `ClusterNode.busRecovered` does
        #expect(rig.outboxes[0].owedCount == 0)
        if case .reconnect? = rig.locals[1].items(to: missed).first {} else { Issue.record("no reconnect") }
    }
}
