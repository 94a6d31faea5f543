//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging
import SwitchboardCore
import SwitchboardProtocol
import SwitchboardTransport

/// How nodes reach each other: a message to one node, or to every node. Fire-and-forget; thread-safe. The
/// server's is Redis pub/sub (`RedisClusterBus`); tests use one in memory.
protocol ClusterBus: Sendable {
    /// Sends `bytes` (an encoded `ClusterWire`) to `node`.
    func send(_ bytes: [UInt8], to node: UInt32)
    /// Sends `bytes` to every node, this one included.
    func broadcast(_ bytes: [UInt8])
}

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
final class ClusterOutbox: Outbox {
    let node: UInt32
    /// This node's connections (`LocalOutbox`).
    let local: any Outbox
    let bus: any ClusterBus
    let logger: Logger
    let metrics: ClusterMetrics
    /// The requests of this node's connections forwarded to another node and not answered yet (thread-safe).
    let forwarded = ForwardedRequests()

    init(node: UInt32, local: any Outbox, bus: any ClusterBus, metrics: ClusterMetrics, logger: Logger) {
        self.node = node
        self.local = local
        self.bus = bus
        self.metrics = metrics
        self.logger = logger
    }

    func post(_ batch: OutboxBatch) {
        guard !batch.isEmpty else { return }
        var mine = OutboxBatch()
        var remote: [UInt32: [ClusterWire.Group]] = [:]
        // The last item added per node, to extend its group while the batch repeats it (runs keep each
        // connection's order: the groups are the batch's runs, in order).
        var lastItem: [UInt32: OutboxItem] = [:]
        for (connection, item) in batch.entries {
            let node = connection.node
            if node == self.node {
                mine.add(item, to: connection)
                continue
            }
            if let last = lastItem[node], Self.same(last, item) {
                remote[node]![remote[node]!.count - 1].connections.append(connection.rawValue)
                continue
            }
            guard let wire = Self.wireItem(item) else {
                logger.error("cluster: a local-only reply or a reconnect addressed to another node's connection was dropped", metadata: [LogKey.connectionId: "\(connection)"])
                continue
            }
            remote[node, default: []].append(ClusterWire.Group(item: wire, connections: [connection.rawValue]))
            lastItem[node] = item
        }
        // The other nodes' part first: it is on its way to Redis before this node's acknowledgements are (a node
        // that dies between the two leaves acknowledged messages undelivered elsewhere for the narrowest time).
        for (node, groups) in remote {
            let bytes = ClusterWire.deliver(groups).encoded()
            metrics.busMessagesSent.increment()
            metrics.busBytesSent.increment(by: Int64(bytes.count))
            bus.send(bytes, to: node)
        }
        if !mine.isEmpty { local.post(mine) }
    }

    /// A delivery from another node: posted to this node's connections in the order it was sent.
    func receive(_ groups: [ClusterWire.Group]) {
        var batch = OutboxBatch()
        for group in groups {
            let item: OutboxItem
            switch group.item {
            case .message(let conversationId, let seq, let payload):
                item = .message(OutboundMessage(conversationId: conversationId, seq: seq, payload: payload))
            case .ephemeral(let bytes, let source): item = .ephemeral(bytes, source: source)
            case .event(let bytes): item = .event(bytes)
            case .revoke: item = .revoke
            case .reply(let idBytes, let op, let success, let body):
                guard let id = ForwardedReplyCodec.requestID(idBytes),
                    let result = success ? .success(body) : ForwardedReplyCodec.error(body).map({ Result<[UInt8], ServiceError>.failure($0) })
                else {
                    logger.error("cluster: a malformed forwarded reply was dropped")
                    continue
                }
                for raw in group.connections {
                    let connection = ConnectionID(rawValue: raw)
                    // Only while the request waits (not after its `unavailable` answer).
                    if connection.node == node, forwarded.complete(connection, id) { batch.add(.reply(.raw(id, op: op, result)), to: connection) }
                }
                continue
            }
            for raw in group.connections {
                let connection = ConnectionID(rawValue: raw)
                // Only this node's connections (a stale directory may name a connection that moved on).
                if connection.node == node { batch.add(item, to: connection) }
            }
        }
        local.post(batch)
    }

    /// Whether two items are the same delivery (the same stored message object, or equal bytes).
    private static func same(_ a: OutboxItem, _ b: OutboxItem) -> Bool {
        switch (a, b) {
        case (.message(let x), .message(let y)): x === y
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
        case .reply(.raw(let id, let op, let result)):
            switch result {
            case .success(let body): .reply(requestId: ForwardedReplyCodec.encode(id), op: op, success: true, body: body)
            case .failure(let error): .reply(requestId: ForwardedReplyCodec.encode(id), op: op, success: false, body: ForwardedReplyCodec.encode(error))
            }
        case .reply, .reconnect: nil
        }
    }
}
