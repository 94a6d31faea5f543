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
