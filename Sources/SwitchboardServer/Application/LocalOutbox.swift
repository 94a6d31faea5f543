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
                            // Room for the whole batch: with one loop (the usual case) its part is all of it,
                            // grown once.
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
