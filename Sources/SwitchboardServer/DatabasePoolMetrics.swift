//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CoreMetrics
import Prometheus
import SwitchboardStore

/// The database pool's instruments: the wait for a connection (a histogram per queue), `overloaded` refusals, and
/// gauges of the connections in use and the callers waiting, read from the pool at each scrape.
///
/// `queue` is `bounded` (the FIFO wait queue: requests, refused beyond `--db-max-waiters`, and the engines'
/// non-urgent callbacks) or `urgent` (served first: the message writers' commits while there are fewer writers than
/// connections, a call's history row). A lease that found a connection idle is recorded as a wait of 0, so the
/// histogram's count is every lease.
///
/// Instruments are made once, in ``init(factory:)``; the observer calls only record into them (no allocation).
final class DatabasePoolMetrics: DatabasePoolObserver {
    /// The histogram buckets of `switchboard_database_pool_wait_seconds` (a wait is usually 0 or a few ms).
    static let waitBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500),
        .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
    ]
    /// The name of the wait histogram (its buckets are set on the factory by name).
    static let waitLabel = "switchboard_database_pool_wait_seconds"

    /// From request to lease, callers of the bounded queue.
    private let waitBounded: CoreMetrics.Timer
    /// From request to lease, urgent callers.
    private let waitUrgent: CoreMetrics.Timer
    /// Async callers refused because the bounded queue was full.
    private let overloaded: CoreMetrics.Counter
    /// Callers in the bounded queue at the last scrape.
    private let waitingBounded: CoreMetrics.Gauge
    /// Urgent callers waiting at the last scrape.
    private let waitingUrgent: CoreMetrics.Gauge
    /// Connections leased at the last scrape.
    private let inUse: CoreMetrics.Gauge
    /// Connections of the pool.
    private let size: CoreMetrics.Gauge

    /// Creates the instruments in `factory`'s registry (whose buckets for ``waitLabel`` must be set already).
    init(factory: PrometheusMetricsFactory) {
        waitBounded = CoreMetrics.Timer(label: Self.waitLabel, dimensions: [("queue", "bounded")], factory: factory)
        waitUrgent = CoreMetrics.Timer(label: Self.waitLabel, dimensions: [("queue", "urgent")], factory: factory)
        overloaded = CoreMetrics.Counter(label: "switchboard_database_pool_overloaded_total", factory: factory)
        waitingBounded = CoreMetrics.Gauge(
            label: "switchboard_database_pool_waiters", dimensions: [("queue", "bounded")], factory: factory)
        waitingUrgent = CoreMetrics.Gauge(
            label: "switchboard_database_pool_waiters", dimensions: [("queue", "urgent")], factory: factory)
        inUse = CoreMetrics.Gauge(label: "switchboard_database_pool_in_use", factory: factory)
        size = CoreMetrics.Gauge(label: "switchboard_database_pool_size", factory: factory)
    }

    func leased(urgent: Bool, waitedNanoseconds: UInt64) {
        (urgent ? waitUrgent : waitBounded).recordNanoseconds(Int64(clamping: waitedNanoseconds))
    }

    func refusedOverloaded() {
        overloaded.increment()
    }

    /// Sets the gauges from one look at the pool (at a scrape).
    func sample(_ statistics: DatabasePool.Statistics) {
        waitingBounded.record(statistics.waiting)
        waitingUrgent.record(statistics.urgentWaiting)
        inUse.record(statistics.inUse)
        size.record(statistics.size)
    }
}
