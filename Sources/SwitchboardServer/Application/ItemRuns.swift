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
