//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CSwitchboardSys
import CoreMetrics
import Foundation
import Metrics
import Prometheus
import SwitchboardProtocol
import SwitchboardStore
import Synchronization

/// The server's instruments, created once (bounded dimensions) and exported as Prometheus text on `/metrics`.
///
/// Each server owns its own registry, so several servers in one test process do not mix their numbers;
/// the executable also bootstraps `MetricsSystem` with the same factory.
public final class ServerMetrics: Sendable {
    /// The registry `/metrics` renders.
    let registry: PrometheusCollectorRegistry
    /// A swift-metrics factory writing into `registry`.
    let factory: PrometheusMetricsFactory

    let connectionsOpen: CoreMetrics.Meter
    let connectionsAccepted: CoreMetrics.Counter
    /// Connections closed at once: over `maxConnections`, or asked for anything while draining (503).
    let connectionsRejected: CoreMetrics.Counter
    let websocketsOpen: CoreMetrics.Meter
    let framesIn: CoreMetrics.Counter
    let framesOut: CoreMetrics.Counter
    let bytesIn: CoreMetrics.Counter
    let bytesOut: CoreMetrics.Counter
    /// `send`/`writev` system calls (frames out per write call: how well writes to a connection coalesce).
    let writeCalls: CoreMetrics.Counter
    let httpRequests: CoreMetrics.Counter
    let backpressureCloses: CoreMetrics.Counter
    let loopLag: [CoreMetrics.Gauge]
    /// Messages (text, voice, system) committed.
    let messagesStored: CoreMetrics.Counter
    /// Message-writer transactions (stored / batches = writes per commit).
    let messageBatches: CoreMetrics.Counter
    /// Message events handed to connections.
    let messageDeliveries: CoreMetrics.Counter
    /// Users published as online or away.
    let usersAvailable: CoreMetrics.Gauge
    /// Calls ended, by nothing else (reasons are in the call history).
    let callsEnded: CoreMetrics.Counter
    /// Voice uploads by HTTP status class.
    let voiceUploadsOK: CoreMetrics.Counter
    let voiceUploadsRefused: CoreMetrics.Counter
    private let handshakeFailures: [String: CoreMetrics.Counter]
    /// Protocol requests decoded and not yet answered, over all connections (admission control).
    let requestsInFlight: CoreMetrics.Meter
    /// Connections whose reading is paused because they reached their limit of requests in flight.
    let connectionsReadPaused: CoreMetrics.Meter
    /// Request tasks cancelled because their connection closed.
    let requestsCancelled: CoreMetrics.Counter
    /// Verification codes the SMS gateway did not take (an error status, a timeout; `--sms-gateway`).
    let smsGatewayFailures: CoreMetrics.Counter
    /// Per-op requests, errors and durations.
    let operations: OperationMetrics
    /// The process's heap in use (glibc's `mallinfo2`), read at each scrape: what live objects hold, without the
    /// pages the allocator keeps free (RSS counts those, and can miss objects placed in pages freed earlier).
    let heapBytes: CoreMetrics.Gauge
    /// The database pool's instruments (the observer of ``observedPool``).
    let databasePool: DatabasePoolMetrics
    /// The pool whose gauges are read at each scrape (``observe(_:)``). Held strongly here, never by
    /// ``databasePool`` (the pool holds that one: no cycle).
    // protected by its own lock
    private let observedPool = Mutex<DatabasePool?>(nil)

    /// Reasons a handshake can fail, the label values of `switchboard_handshake_failures_total`.
    static let handshakeFailureReasons = [
        "not_get", "missing_upgrade", "missing_connection_upgrade", "unsupported_version", "bad_key",
        "origin_not_allowed", "no_acceptable_subprotocol", "http_version", "bad_request", "timeout", "other",
    ]

    /// Creates the instruments.
    /// - Parameter loopCount: one lag gauge per loop.
    /// - Parameter ops: the known protocol ops (the bounded `op` label of the per-op instruments).
    public convenience init(loopCount: Int) {
        self.init(loopCount: loopCount, ops: Set(ProtocolSchema.operations.map { $0.name }))
    }

    init(loopCount: Int, ops: Set<String>) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Buckets for the queues' waits and commits (the default ones start at 5 ms).
        factory.durationHistogramBuckets[DatabasePoolMetrics.waitLabel] = DatabasePoolMetrics.waitBuckets
        factory.durationHistogramBuckets[MessageWriterMetrics.commitLabel] = MessageWriterMetrics.commitBuckets
        factory.valueHistogramBuckets[MessageWriterMetrics.batchLabel] = MessageWriterMetrics.batchBuckets
        self.registry = registry
        self.factory = factory
        connectionsOpen = CoreMetrics.Meter(label: "switchboard_connections", factory: factory)
        connectionsAccepted = CoreMetrics.Counter(label: "switchboard_connections_accepted_total", factory: factory)
        connectionsRejected = CoreMetrics.Counter(label: "switchboard_connections_rejected_total", factory: factory)
        websocketsOpen = CoreMetrics.Meter(label: "switchboard_websockets", factory: factory)
        framesIn = CoreMetrics.Counter(
            label: "switchboard_frames_total", dimensions: [("direction", "in")], factory: factory)
        framesOut = CoreMetrics.Counter(
            label: "switchboard_frames_total", dimensions: [("direction", "out")], factory: factory)
        bytesIn = CoreMetrics.Counter(
            label: "switchboard_bytes_total", dimensions: [("direction", "in")], factory: factory)
        bytesOut = CoreMetrics.Counter(
            label: "switchboard_bytes_total", dimensions: [("direction", "out")], factory: factory)
        writeCalls = CoreMetrics.Counter(label: "switchboard_write_calls_total", factory: factory)
        httpRequests = CoreMetrics.Counter(label: "switchboard_http_requests_total", factory: factory)
        backpressureCloses = CoreMetrics.Counter(label: "switchboard_backpressure_closes_total", factory: factory)
        loopLag = (0..<max(1, loopCount)).map {
            CoreMetrics.Gauge(
                label: "switchboard_loop_lag_seconds", dimensions: [("loop", String($0))], factory: factory)
        }
        messagesStored = CoreMetrics.Counter(label: "switchboard_messages_stored_total", factory: factory)
        messageBatches = CoreMetrics.Counter(label: "switchboard_message_batches_total", factory: factory)
        messageDeliveries = CoreMetrics.Counter(label: "switchboard_message_deliveries_total", factory: factory)
        usersAvailable = CoreMetrics.Gauge(label: "switchboard_users_available", factory: factory)
        callsEnded = CoreMetrics.Counter(label: "switchboard_calls_ended_total", factory: factory)
        voiceUploadsOK = CoreMetrics.Counter(
            label: "switchboard_voice_uploads_total", dimensions: [("result", "stored")], factory: factory)
        voiceUploadsRefused = CoreMetrics.Counter(
            label: "switchboard_voice_uploads_total", dimensions: [("result", "refused")], factory: factory)
        var failures: [String: CoreMetrics.Counter] = [:]
        for reason in Self.handshakeFailureReasons {
            failures[reason] = CoreMetrics.Counter(
                label: "switchboard_handshake_failures_total",
                dimensions: [("reason", reason)],
                factory: factory
            )
        }
        handshakeFailures = failures
        requestsInFlight = CoreMetrics.Meter(label: "switchboard_requests_in_flight", factory: factory)
        connectionsReadPaused = CoreMetrics.Meter(label: "switchboard_connections_read_paused", factory: factory)
        requestsCancelled = CoreMetrics.Counter(label: "switchboard_requests_cancelled_total", factory: factory)
        smsGatewayFailures = CoreMetrics.Counter(label: "switchboard_sms_gateway_failures_total", factory: factory)
        operations = OperationMetrics(ops: ops, factory: factory)
        heapBytes = CoreMetrics.Gauge(label: "switchboard_heap_bytes", factory: factory)
        databasePool = DatabasePoolMetrics(factory: factory)
    }

    /// Measures `pool`: its leases' waits and `overloaded` refusals as they happen, its gauges (connections in use,
    /// callers waiting) at each scrape. A server calls it for its pool; a later call replaces the pool observed.
    func observe(_ pool: DatabasePool) {
        observedPool.withLock { $0 = pool }
        pool.setObserver(databasePool)
    }

    /// Counts a failed handshake under a bounded reason label.
    func handshakeFailed(reason: String) {
        (handshakeFailures[reason] ?? handshakeFailures["other"])?.increment()
    }

    /// Publishes and resets one loop's traffic counts; `writeCalls` is the loop's running count of write system
    /// calls. Call on that loop's queue.
    func publish(_ traffic: LoopTraffic, writeCalls calls: Int) {
        if calls > traffic.writeCallsPublished { writeCalls.increment(by: calls - traffic.writeCallsPublished) }
        traffic.writeCallsPublished = calls
        if traffic.framesIn > 0 { framesIn.increment(by: traffic.framesIn) }
        if traffic.framesOut > 0 { framesOut.increment(by: traffic.framesOut) }
        if traffic.bytesIn > 0 { bytesIn.increment(by: traffic.bytesIn) }
        if traffic.bytesOut > 0 { bytesOut.increment(by: traffic.bytesOut) }
        traffic.framesIn = 0
        traffic.framesOut = 0
        traffic.bytesIn = 0
        traffic.bytesOut = 0
    }

    /// The Prometheus text exposition of every instrument.
    public func render() -> [UInt8] {
        // mallinfo2 walks the arenas' bins under their locks: microseconds, once per scrape.
        heapBytes.record(Double(CSwitchboardSys_heap_in_use()))
        if let pool = observedPool.withLock({ $0 }) { databasePool.sample(pool.statistics) }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(8192)
        registry.emit(into: &buffer)
        return buffer
    }
}
