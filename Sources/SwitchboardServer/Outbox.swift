//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Synchronization
import SwitchboardCore
import SwitchboardProtocol
import SwitchboardTransport

/// A connection, unique in the process for its lifetime (never reused). Engines address connections by it,
/// never by the connection's object, so that a delivery can be handed to a local loop or (later) to a bus.
struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    let rawValue: UInt64

    private static let counter = Atomic<UInt64>(0)

    /// A new identifier, never handed out before in this process.
    static func next() -> ConnectionID {
        ConnectionID(rawValue: counter.add(1, ordering: .relaxed).newValue)
    }

    var description: String { "c\(rawValue)" }
}

/// What an engine answers to a connection's request, as a value (it may cross a bus): the connection
/// encodes it for the wire.
enum EngineReply: Sendable {
    /// The result of a message write: the short acknowledgement (`messages.send`) or `{"message": ...}`.
    case message(RequestID, Result<ChatMessage, ServiceError>, ack: Bool)
    /// `{}`, or the error.
    case empty(RequestID, ServiceError?)
    /// Raw JSON for `ok` (calls), or the error.
    case raw(RequestID, Result<[UInt8], ServiceError>)
    /// A new group's first message was delivered by its writer: the connection answers with the group's summary.
    case groupAnnounced(RequestID, conversationId: Int64)
}

/// One item for one connection.
enum OutboxItem: Sendable {
    /// The answer to a request of this connection.
    case reply(EngineReply)
    /// A stored message (the connection applies its delivery state: `SentSeqs`, holding during a resume).
    case message(OutboundMessage)
    /// A presence or typing event, conflated per `source` while the connection is backed up.
    case ephemeral([UInt8], source: String)
    /// An event (a JSON text message).
    case event([UInt8])
    /// The connection's session was revoked: tell it and close it (4001).
    case revoke
}

/// A set of deliveries handed over at once. Each connection gets its items in order; replies go out before the
/// other items of the same batch (a sender is not kept waiting behind a fan-out).
struct OutboxBatch: Sendable {
    private(set) var entries: [(ConnectionID, OutboxItem)] = []

    init() {}

    var isEmpty: Bool { entries.isEmpty }

    mutating func add(_ item: OutboxItem, to connection: ConnectionID) {
        entries.append((connection, item))
    }

    mutating func add(_ item: OutboxItem, to connections: some Sequence<ConnectionID>) {
        for connection in connections { entries.append((connection, item)) }
    }

    mutating func reply(_ reply: EngineReply, to connection: ConnectionID) {
        add(.reply(reply), to: connection)
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
}

/// The outbox of this process: maps connection ids to their loop and object and hands each loop its part of
/// a batch in one `executeBatch` (one flush per connection per batch; shared frames for a fan-out).
final class LocalOutbox: Outbox, @unchecked Sendable {
    // @unchecked Sendable: `connections` is only touched under `lock`.
    private struct Entry {
        let loop: EventLoop
        weak var endpoint: (any OutboxEndpoint)?
    }

    private let lock = NSLock()
    // protected by lock
    private var connections: [ConnectionID: Entry] = [:]

    /// A connection may now be addressed (call on its loop).
    func attach(_ id: ConnectionID, _ endpoint: any OutboxEndpoint, loop: EventLoop) {
        loop.assertOnLoop()
        lock.withLock { connections[id] = Entry(loop: loop, endpoint: endpoint) }
    }

    /// A connection closed: deliveries to it are dropped from now on.
    func detach(_ id: ConnectionID) {
        lock.withLock { connections[id] = nil }
    }

    /// The number of attached connections.
    var count: Int { lock.withLock { connections.count } }

    func post(_ batch: OutboxBatch) {
        guard !batch.isEmpty else { return }
        // Group by loop, keeping the batch's order within each loop.
        var byLoop: [ObjectIdentifier: (loop: EventLoop, items: [(Endpoint, OutboxItem)])] = [:]
        lock.withLock {
            for (id, item) in batch.entries {
                guard let entry = connections[id] else { continue }
                let key = ObjectIdentifier(entry.loop)
                if byLoop[key] == nil { byLoop[key] = (entry.loop, []) }
                byLoop[key]!.items.append((Endpoint(entry.endpoint), item))
            }
        }
        for (_, part) in byLoop {
            let items = part.items
            let loop = part.loop
            let replies = items.count { if case .reply = $0.1 { true } else { false } }
            if replies > 0 && replies < items.count {
                // Replies (acknowledgements) first, in a batch of their own so they are flushed before the fan-out
                // of the same commit is written. (A connection may therefore get the acknowledgement of its own
                // seq 8 before the event of another member's seq 7 from the same commit; clients order by seq.)
                let first = items.filter { if case .reply = $0.1 { true } else { false } }
                let rest = items.filter { if case .reply = $0.1 { false } else { true } }
                loop.executeBatch { Self.perform(first, on: loop) }
                loop.executeBatch { Self.perform(rest, on: loop) }
            } else {
                loop.executeBatch { Self.perform(items, on: loop) }
            }
        }
    }

    /// A weak reference to an endpoint that travels to its loop and is only dereferenced there.
    private struct Endpoint: @unchecked Sendable {
        // @unchecked Sendable: `value` is only dereferenced on the endpoint's loop (`perform` asserts it).
        weak var value: (any OutboxEndpoint)?
        init(_ value: (any OutboxEndpoint)?) { self.value = value }
    }

    private static func perform(_ items: [(Endpoint, OutboxItem)], on loop: EventLoop) {
        loop.assertOnLoop()
        for (endpoint, item) in items { endpoint.value?.receive(item) }
    }
}
