//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardTransport
import Synchronization

/// The outbox of a node in a cluster: items for this node's connections go to its `LocalOutbox` as they are
/// (the single-node path, unchanged), and the rest go out as one bus message per batch and node, each item
/// written once with the list of its connections there (a message fanned out to 1,000 members on three nodes
/// costs each other node one bus message). The receiving node turns it back into one batch
/// (`ClusterOutbox.receive`): one `OutboundMessage` (one encoded frame) for all its recipients there.
///
/// Replies cross the bus only as answers to requests this node forwarded (calls, to the call coordinator:
/// `EngineReply.raw`); the node that forwarded one delivers its answer only while it still waits for it
/// (`forwarded`: an answer after the origin gave up and answered `unavailable` is dropped). Other engines answer
/// requests of their own node's connections only.
///
/// Acknowledged means delivered or owed a resync (issue 37): a batch whose items go to other nodes posts its own
/// node's part (the senders' acknowledgements among it) only once Redis has answered every PUBLISH of the batch;
/// this node's parts are posted in the order of `post` (one queue of waiting parts). A publish that fails (Redis
/// refused it, the connection dropped, or it timed out after `--redis-timeout`) still lets the local part go (the
/// messages are in PostgreSQL), and its recipients there are owed a reconnect: at the next publish Redis accepts
/// (or when the bus recovers), their node is sent a `.reconnect` for them, which closes them with 1012 so that
/// their clients resume. So no acknowledged message is silently missed live by a connected member.
final class ClusterOutbox: Outbox {
    let node: UInt32
    /// This node's connections (`LocalOutbox`).
    let local: any Outbox
    let bus: any ClusterBus
    let logger: Logger
    let metrics: ClusterMetrics
    /// The requests of this node's connections forwarded to another node and not answered yet (thread-safe).
    let forwarded = ForwardedRequests()
    /// The most connections of one node remembered as owed a reconnect (beyond: logged and dropped).
    let maxOwedPerNode: Int

    /// A local part waiting for its batch's publishes.
    private struct Waiting {
        let ticket: UInt64
        var remaining: Int
        let batch: OutboxBatch
    }

    /// The local parts waiting (oldest first, from `head`), and the connections of other nodes owed a reconnect.
    private struct Confirmations {
        var waiting: [Waiting] = []
        var head = 0
        var nextTicket: UInt64 = 0
        var owed: [UInt32: Set<UInt64>] = [:]
        var owedDropped = 0
        var isEmpty: Bool { head == waiting.count }
    }

    // protected by its own lock; local parts are posted while holding it (`LocalOutbox.post` only enqueues), so
    // that they leave in the order they were queued
    private let confirmations = Mutex(Confirmations())

    init(
        node: UInt32, local: any Outbox, bus: any ClusterBus, metrics: ClusterMetrics, logger: Logger,
        maxOwedPerNode: Int = 100_000
    ) {
        self.node = node
        self.maxOwedPerNode = maxOwedPerNode
        self.local = local
        self.bus = bus
        self.metrics = metrics
        self.logger = logger
    }

    /// One other node's part of a batch being split.
    private struct RemotePart {
        let node: UInt32
        var groups: [ClusterWire.Group] = []
        /// The last item added, to extend its group while the batch repeats it (runs keep each connection's
        /// order: the groups are the batch's runs, in order).
        var last: OutboxItem
    }

    func post(_ batch: OutboxBatch) {
        guard !batch.isEmpty else { return }
        var mine = OutboxBatch()
        mine.reserveCapacity(batch.count)
        // A handful of nodes: found by a linear search from the previous entry's (a fan-out's entries come in
        // long runs per item), never by hashing per entry.
        var remote: [RemotePart] = []
        var current = -1
        var here: [ConnectionID] = []  // this node's connections of the current item
        batch.forEachItem { item, connections in
            here.removeAll(keepingCapacity: true)
            for connection in connections {
                let node = connection.node
                if node == self.node {
                    here.append(connection)
                    continue
                }
                if current < 0 || remote[current].node != node {
                    current = remote.firstIndex { $0.node == node } ?? -1
                }
                if case .messages(let messages) = item {
                    // A run of messages crosses the bus as one group per message: the connections that get the same
                    // run join each of its groups (each connection still gets the run's messages in order).
                    if current >= 0, Self.same(remote[current].last, item) {
                        let groups = remote[current].groups.count
                        for g in (groups - messages.count)..<groups {
                            remote[current].groups[g].connections.append(connection.rawValue)
                        }
                        continue
                    }
                    if current < 0 {
                        remote.append(RemotePart(node: node, last: item))
                        current = remote.count - 1
                    }
                    for m in messages {
                        let wire = ClusterWire.Item.message(
                            conversationId: m.conversationId, seq: m.seq, payload: m.payload)
                        remote[current].groups.append(ClusterWire.Group(item: wire, connections: [connection.rawValue]))
                    }
                    remote[current].last = item
                    continue
                }
                if current >= 0, Self.same(remote[current].last, item) {
                    remote[current].groups[remote[current].groups.count - 1].connections.append(connection.rawValue)
                    continue
                }
                guard let wire = Self.wireItem(item) else {
                    logger.error(
                        "cluster: a local-only reply or a reconnect addressed to another node's connection was dropped",
                        metadata: [LogKey.connectionId: "\(connection)"])
                    continue
                }
                if current < 0 {
                    remote.append(RemotePart(node: node, last: item))
                    current = remote.count - 1
                }
                remote[current].groups.append(ClusterWire.Group(item: wire, connections: [connection.rawValue]))
                remote[current].last = item
            }
            mine.add(item, to: here)
        }
        guard !remote.isEmpty else {
            guard !mine.isEmpty else { return }
            confirmations.withLock { c in
                if c.isEmpty {
                    local.post(mine)
                } else {
                    c.waiting.append(Waiting(ticket: c.nextTicket, remaining: 0, batch: mine))
                    c.nextTicket += 1
                }
            }
            return
        }
        // The other nodes' part first; this node's part (its acknowledgements) waits until Redis has taken them.
        let ticket: UInt64? =
            mine.isEmpty
            ? nil
            : confirmations.withLock { c in
                c.waiting.append(Waiting(ticket: c.nextTicket, remaining: remote.count, batch: mine))
                c.nextTicket += 1
                return c.nextTicket - 1
            }
        for part in remote {
            let bytes = ClusterWire.deliver(part.groups).encoded()
            metrics.busMessagesSent.increment()
            metrics.busBytesSent.increment(by: Int64(bytes.count))
            let node = part.node
            let groups = part.groups
            bus.send(bytes, to: node) { [self] accepted in
                confirmed(ticket, accepted ? nil : (node, groups))
            }
        }
    }

    /// One publish of a batch was answered: counts it down, posts the local parts whose publishes are all answered
    /// (in order), and remembers a failed one's connections as owed a reconnect.
    private func confirmed(_ ticket: UInt64?, _ failed: (node: UInt32, groups: [ClusterWire.Group])?) {
        let flush = confirmations.withLock { c -> Bool in
            if let failed {
                var owed = c.owed[failed.node, default: []]
                for group in failed.groups {
                    for connection in group.connections where !owed.contains(connection) {
                        if owed.count < maxOwedPerNode { owed.insert(connection) } else { c.owedDropped += 1 }
                    }
                }
                c.owed[failed.node] = owed
            }
            if let ticket, !c.isEmpty {
                let i = c.head + Int(ticket - c.waiting[c.head].ticket)
                if i < c.waiting.count { c.waiting[i].remaining -= 1 }
                while c.head < c.waiting.count, c.waiting[c.head].remaining <= 0 {
                    local.post(c.waiting[c.head].batch)
                    c.head += 1
                }
                if c.isEmpty {
                    c.waiting.removeAll(keepingCapacity: true)
                    c.head = 0
                } else if c.head > 1024, c.head * 2 > c.waiting.count {
                    c.waiting.removeFirst(c.head)
                    c.head = 0
                }
            }
            return failed == nil && !c.owed.isEmpty
        }
        if flush { flushOwed() }
    }

    /// Sends every node owed a reconnect for some of its connections a `.reconnect` for them (after the bus took a
    /// publish again, or recovered); one that fails stays owed.
    func flushOwed() {
        let (owed, dropped) = confirmations.withLock { c in
            defer {
                c.owed = [:]
                c.owedDropped = 0
            }
            return (c.owed, c.owedDropped)
        }
        if dropped > 0 {
            logger.error(
                "cluster: more connections owed a reconnect than remembered; some may miss messages until they sync",
                metadata: ["sb.dropped": "\(dropped)"])
        }
        for (node, connections) in owed where !connections.isEmpty {
            logger.warning(
                "cluster: publishes to a node failed; asking its recipients to reconnect",
                metadata: ["sb.node": "\(node)", "sb.connections": "\(connections.count)"])
            let groups = [ClusterWire.Group(item: .reconnect, connections: Array(connections))]
            let bytes = ClusterWire.deliver(groups).encoded()
            metrics.busMessagesSent.increment()
            metrics.busBytesSent.increment(by: Int64(bytes.count))
            bus.send(bytes, to: node) { [self] accepted in
                if !accepted { confirmed(nil, (node, groups)) }
            }
        }
    }

    /// How many connections of other nodes are owed a reconnect (tests).
    var owedCount: Int { confirmations.withLock { $0.owed.values.reduce(0) { $0 + $1.count } } }

    /// A delivery from another node: posted to this node's connections in the order it was sent.
    func receive(_ groups: [ClusterWire.Group]) {
        var batch = OutboxBatch()
        batch.reserveCapacity(groups.reduce(0) { $0 + $1.connections.count })
        for group in groups {
            let item: OutboxItem
            switch group.item {
            case .message(let conversationId, let seq, let payload):
                item = .message(OutboundMessage(conversationId: conversationId, seq: seq, payload: payload))
            case .ephemeral(let bytes, let source): item = .ephemeral(bytes, source: source)
            case .event(let bytes): item = .event(bytes)
            case .revoke: item = .revoke
            case .reconnect: item = .reconnect
            case .reply(let idBytes, let op, let success, let body):
                guard let id = ForwardedReplyCodec.requestID(idBytes),
                    let result = success
                        ? .success(body)
                        : ForwardedReplyCodec.error(body).map({ Result<[UInt8], ServiceError>.failure($0) })
                else {
                    logger.error("cluster: a malformed forwarded reply was dropped")
                    continue
                }
                for raw in group.connections {
                    let connection = ConnectionID(rawValue: raw)
                    // Only while the request waits (not after its `unavailable` answer).
                    if connection.node == node, forwarded.complete(connection, id) {
                        batch.add(.reply(.raw(id, op: op, result)), to: connection)
                    }
                }
                continue
            }
            // Only this node's connections (a stale directory may name a connection that moved on), as one item
            // with its run of connections (no copy of the item per recipient).
            batch.add(
                item, to: group.connections.lazy.map { ConnectionID(rawValue: $0) }.filter { $0.node == self.node })
        }
        local.post(batch)
    }

    /// Whether two items are the same delivery (the same stored message object, or equal bytes).
    private static func same(_ a: OutboxItem, _ b: OutboxItem) -> Bool {
        switch (a, b) {
        case (.message(let x), .message(let y)): x === y
        case (.messages(let x), .messages(let y)): x.count == y.count && zip(x, y).allSatisfy { $0 === $1 }
        case (.event(let x), .event(let y)): x == y
        case (.ephemeral(let x, let s), .ephemeral(let y, let t)): s == t && x == y
        case (.revoke, .revoke): true
        default: false
        }
    }

    private static func wireItem(_ item: OutboxItem) -> ClusterWire.Item? {
        switch item {
        case .message(let m): .message(conversationId: m.conversationId, seq: m.seq, payload: m.payload)
        case .ephemeral(let bytes, let source): .ephemeral(bytes, source: source)
        case .event(let bytes): .event(bytes)
        case .revoke: .revoke
        case .reconnect: .reconnect
        case .reply(.raw(let id, let op, let result)):
            switch result {
            case .success(let body):
                .reply(requestId: ForwardedReplyCodec.encode(id), op: op, success: true, body: body)
            case .failure(let error):
                .reply(
                    requestId: ForwardedReplyCodec.encode(id), op: op, success: false,
                    body: ForwardedReplyCodec.encode(error))
            }
        case .reply, .suspend, .close, .social, .messages: nil
        }
    }
}
