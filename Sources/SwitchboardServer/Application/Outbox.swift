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
import SwitchboardTransport
import Synchronization

/// A connection, unique in the process for its lifetime (never reused). Engines address connections by it,
/// never by the connection's object, so that a delivery can be handed to a local loop or (later) to a bus.
struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The node (high `nodeBits`) and a number unique in the node's process (the rest). One node (no cluster) is
    /// node 0.
    let rawValue: UInt64

    /// Bits of the node number.
    static let nodeBits: UInt64 = 24
    static let localBits: UInt64 = 64 - nodeBits

    private static let counter = Atomic<UInt64>(0)

    init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A new identifier of a connection of `node`, never handed out before in this process.
    static func next(node: UInt32 = 0) -> ConnectionID {
        let local = counter.add(1, ordering: .relaxed).newValue & ((1 << localBits) - 1)
        return ConnectionID(rawValue: UInt64(node) << localBits | local)
    }

    /// The node the connection is on.
    var node: UInt32 { UInt32(truncatingIfNeeded: rawValue >> Self.localBits) }

    var description: String { node == 0 ? "c\(rawValue)" : "c\(node).\(rawValue & ((1 << Self.localBits) - 1))" }

    /// Hashed like an `IDKey` (the server numbers connections; SipHash here was a third of a delivery's hashing).
    func _rawHashValue(seed: Int) -> Int { Int(bitPattern: UInt(IDKey.mix(rawValue, seed: seed))) }
}

/// What an engine answers to a connection's request, as a value (it may cross a bus): the connection
/// encodes it for the wire.
enum EngineReply: Sendable {
    // Each answer names its request's op: an error answer is counted per op and code (and `internal` logged)
    // by the connection that sends it.
    /// The result of a message write: the short acknowledgement (`messages.send`) or `{"message": ...}`.
    case message(RequestID, op: String, Result<ChatMessage, ServiceError>, ack: Bool)
    /// `{}`, or the error.
    case empty(RequestID, op: String, ServiceError?)
    /// Raw JSON for `ok` (calls), or the error.
    case raw(RequestID, op: String, Result<[UInt8], ServiceError>)
    /// A new group's first message was delivered by its writer: the connection answers with the group's summary.
    case groupAnnounced(RequestID, conversationId: Int64)
}

/// One item for one connection.
enum OutboxItem: Sendable {
    /// The answer to a request of this connection. Boxed (`indirect`): an `EngineReply` is large, and an item is
    /// copied once per recipient of a fan-out, so the enum stays small.
    indirect case reply(EngineReply)
    /// A stored message (the connection applies its delivery state: `SentSeqs`, holding during a resume).
    case message(OutboundMessage)
    /// Stored messages of one commit, in order, each as `.message` would deliver it (`DeliveryPlan` makes one
    /// item per device for a run of messages to the same devices).
    case messages([OutboundMessage])
    /// A presence or typing event, conflated per `source` while the connection is backed up.
    case ephemeral([UInt8], source: String)
    /// An event (a JSON text message).
    case event([UInt8])
    /// A live page event (`SocialLive`): never crosses the bus as an item (each node routes social changes itself).
    case social(SocialDelivery)
    /// The connection's session was revoked: tell it and close it (4001).
    case revoke
    /// The connection's account was suspended: tell it and close it (4004).
    case suspend
    /// Close the connection with this code (after the items before it, e.g. an event saying why).
    case close(code: UInt16, reason: String)
    /// Deliveries to the connection may have been lost (the cluster's bus was interrupted): close it with 1012
    /// so that the client reconnects and resumes (`docs/cluster.md`).
    case reconnect
}

/// Items, each with the run of targets it goes to, in order: one flat array of targets and, per item, where its run
/// ends. A fan-out holds its item once, whatever the number of its targets, so nothing copies (retains and
/// releases) it per recipient (issue 17: six retains per delivery). `OutboxBatch` keeps connection ids in one, a
/// loop's part of a batch in `LocalOutbox` keeps endpoints.
struct ItemRuns<Target> {
    /// The items in order, each with the end (exclusive) of its run in `targets`.
    private(set) var items: [(item: OutboxItem, end: Int)] = []
    private(set) var targets: [Target] = []

    var isEmpty: Bool { items.isEmpty }

    /// The number of deliveries (an item and a target each).
    var count: Int { targets.count }

    mutating func reserveCapacity(_ count: Int) { targets.reserveCapacity(count) }

    /// `item` for `newTargets`, as a run of its own (nothing when there are none).
    mutating func append(_ item: OutboxItem, to newTargets: some Sequence<Target>) {
        let start = targets.count
        targets.append(contentsOf: newTargets)
        if targets.count > start { items.append((item, targets.count)) }
    }

    /// `item` for one more target; `sameItemAsLast`: the last run's item is `item` (the caller knows), and the
    /// target joins that run.
    mutating func append(_ item: OutboxItem, to target: Target, sameItemAsLast: Bool) {
        targets.append(target)
        if sameItemAsLast && !items.isEmpty {
            items[items.count - 1].end = targets.count
        } else {
            items.append((item, targets.count))
        }
    }

    /// Each item with its run of targets, in order.
    func forEachRun(_ body: (OutboxItem, ArraySlice<Target>) throws -> Void) rethrows {
        var start = 0
        for (item, end) in items {
            try body(item, targets[start..<end])
            start = end
        }
    }
}

extension ItemRuns: Sendable where Target: Sendable {}

/// A set of deliveries handed over at once. Each connection gets its items in order; replies go out before the
/// other items of the same batch (a sender is not kept waiting behind a fan-out). Each item is kept once with the
/// run of connections it goes to (`ItemRuns`).
struct OutboxBatch: Sendable {
    private var runs = ItemRuns<ConnectionID>()

    init() {}

    var isEmpty: Bool { runs.isEmpty }

    /// The number of deliveries (an item and a connection each).
    var count: Int { runs.count }

    /// Room for this many deliveries.
    mutating func reserveCapacity(_ count: Int) { runs.reserveCapacity(count) }

    mutating func add(_ item: OutboxItem, to connection: ConnectionID) {
        runs.append(item, to: CollectionOfOne(connection))
    }

    /// One item for some connections (nothing when there are none).
    mutating func add(_ item: OutboxItem, to connections: some Sequence<ConnectionID>) {
        runs.append(item, to: connections)
    }

    mutating func reply(_ reply: EngineReply, to connection: ConnectionID) {
        add(.reply(reply), to: connection)
    }

    /// Each item with its connections, in order.
    func forEachItem(_ body: (OutboxItem, ArraySlice<ConnectionID>) throws -> Void) rethrows {
        try runs.forEachRun(body)
    }
}

/// Where engines (messaging, calls, presence) hand their deliveries: local loops today, the cluster's bus
/// tomorrow. Thread-safe; `post` may be called on any queue and returns at once.
protocol Outbox: Sendable {
    /// Hands the batch over; each connection's items arrive in the batch's order (replies first). Items for a
    /// connection that is gone are dropped.
    func post(_ batch: OutboxBatch)
}

extension Outbox {
    /// One item for some connections.
    func post(_ item: OutboxItem, to connections: some Sequence<ConnectionID>) {
        var batch = OutboxBatch()
        batch.add(item, to: connections)
        if !batch.isEmpty { post(batch) }
    }

    /// The answer to a connection's request.
    func reply(_ reply: EngineReply, to connection: ConnectionID) {
        post(.reply(reply), to: [connection])
    }
}

/// A connection that takes deliveries from the local outbox (on its loop).
protocol OutboxEndpoint: AnyObject {
    /// One item; called on the connection's loop, inside a batch (`EventLoop.executeBatch`).
    func receive(_ item: OutboxItem)
    /// Writes what `receive` queued now instead of at the end of the loop turn (replies: a sender's
    /// acknowledgement does not wait behind the fan-out that the same turn writes).
    func flushNow()
}

extension OutboxEndpoint {
    func flushNow() {}
}

/// The outbox of this process: maps connection ids to their loop and object and hands each loop its part of
/// a batch in one `executeBatch` (one flush per connection per batch; shared frames for a fan-out).
final class LocalOutbox: Outbox, @unchecked Sendable {
    // @unchecked Sendable: `connections` is only touched under `lock`; an endpoint is only called on its loop.
    /// One attached connection: its loop and its endpoint, inline in the map (a class per connection cost 48 bytes
    /// of heap per idle connection).
    ///
    /// The reference to the endpoint is strong, not weak: a weak load (`swift_weakLoadStrong`) per delivery was
    /// 6.7% of the server's CPU in a 1,000-member fan-out (issue 17). `detach`, which every endpoint calls when
    /// its connection closes, removes it from the map; items already posted to its loop keep it until they have
    /// run (the closed endpoint ignores them), so a closed connection's endpoint is not kept alive.
    private struct Attached {
        /// Unowned: a loop lives as long as the server (as `Connection.loop`); a strong reference was a retain and
        /// a release per delivery.
        unowned(unsafe) let loop: EventLoop
        let endpoint: any OutboxEndpoint
    }

    private let lock = NSLock()
    // protected by lock. Unchecked exclusivity: every access is under the lock and none overlaps another (a fan-out
    // reads it once per recipient).
    @exclusivity(unchecked) private var connections: [ConnectionID: Attached] = [:]

    /// A connection may now be addressed (call on its loop).
    func attach(_ id: ConnectionID, _ endpoint: any OutboxEndpoint, loop: EventLoop) {
        loop.assertOnLoop()
        let attached = Attached(loop: loop, endpoint: endpoint)
        lock.withLock { connections[id] = attached }
    }

    /// A connection closed: deliveries to it are dropped from now on.
    func detach(_ id: ConnectionID) {
        let removed = lock.withLock { connections.removeValue(forKey: id) }
        _ = removed  // released outside the lock
    }

    /// Whether a connection is attached (live pages refuse a subscription of a connection that closed).
    func isAttached(_ id: ConnectionID) -> Bool {
        lock.withLock { connections[id] != nil }
    }

    /// The number of attached connections.
    var count: Int { lock.withLock { connections.count } }

    func post(_ batch: OutboxBatch) {
        guard !batch.isEmpty else { return }
        // Group by loop, keeping the batch's order within each loop; replies (acknowledgements) apart, so that they
        // go out in a batch of their own, flushed before the fan-out of the same commit is written. (A connection
        // may therefore get the acknowledgement of its own seq 8 before the event of another member's seq 7 from
        // the same commit; clients order by seq.)
        var parts: [Part] = []
        var last = -1
        lock.withLock {
            var itemIndex = 0
            batch.forEachItem { item, ids in
                let isReply = if case .reply = item { true } else { false }
                for id in ids {
                    guard let attached = connections[id] else { continue }
                    if last < 0 || parts[last].loop !== attached.loop {
                        if let i = parts.firstIndex(where: { $0.loop === attached.loop }) {
                            last = i
                        } else {
                            // Room for the whole batch: with one loop (the usual case) its part is all of it, grown once.
                            parts.append(Part(loop: attached.loop, capacity: batch.count))
                            last = parts.count - 1
                        }
                    }
                    if isReply {
                        parts[last].replies.append(Delivery(endpoint: attached.endpoint, item: item))
                    } else {
                        parts[last].rest.add(attached.endpoint, item, itemIndex: itemIndex)
                    }
                }
                itemIndex += 1
            }
        }
        for part in parts {
            let loop = part.loop
            if !part.replies.isEmpty {
                let replies = part.replies
                loop.executeBatch {
                    loop.assertOnLoop()
                    for delivery in replies { delivery.endpoint.receive(delivery.item) }
                    // Acknowledgements leave before the turn's fan-out is written: a sender's next message is not
                    // held back by the deliveries of its previous one (the turn may carry thousands).
                    for delivery in replies { delivery.endpoint.flushNow() }
                }
            }
            if !part.rest.runs.isEmpty {
                let rest = part.rest
                loop.executeBatch { rest.perform(on: loop) }
            }
        }
    }

    /// An item for an endpoint, carried to the endpoint's loop.
    private struct Delivery: @unchecked Sendable {
        // @unchecked Sendable: the endpoint is only called on its loop (`perform` asserts it).
        let endpoint: any OutboxEndpoint
        let item: OutboxItem
    }

    /// Items for endpoints of one loop, each item once with the run of its endpoints.
    private struct Runs: @unchecked Sendable {
        // @unchecked Sendable: the endpoints are only called on their loop (`perform` asserts it).
        var runs = ItemRuns<any OutboxEndpoint>()
        /// The batch's index of the last item added.
        var lastItem = -1

        mutating func add(_ endpoint: any OutboxEndpoint, _ item: OutboxItem, itemIndex: Int) {
            runs.append(item, to: endpoint, sameItemAsLast: itemIndex == lastItem)
            lastItem = itemIndex
        }

        func perform(on loop: EventLoop) {
            loop.assertOnLoop()
            runs.forEachRun { item, endpoints in
                for endpoint in endpoints { endpoint.receive(item) }
            }
        }
    }

    /// One loop's share of a batch.
    private struct Part {
        unowned(unsafe) let loop: EventLoop
        var replies: [Delivery] = []
        var rest = Runs()

        init(loop: EventLoop, capacity: Int) {
            self.loop = loop
            // Not for a small batch (an acknowledgement alone): it would allocate an array that stays empty.
            if capacity > 16 { rest.runs.reserveCapacity(capacity) }
        }
    }
}
