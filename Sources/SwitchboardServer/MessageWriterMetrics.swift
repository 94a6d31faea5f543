//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CoreMetrics
import Prometheus

/// One message writer's instruments: its backlog (`switchboard_message_writer_backlog{writer}`, a gauge per writer:
/// one hot writer shows), and the writes per committed transaction and the commit's time, histograms shared by
/// every writer (`switchboard_message_batch_writes`, `switchboard_message_commit_seconds`).
///
/// Made once per writer when it is created; recording is an atomic store (the gauge) or one histogram update under
/// the histogram's lock, never an allocation.
struct MessageWriterMetrics: Sendable {
    /// The histogram buckets of `switchboard_message_batch_writes` (a batch holds at most `maxBatch` writes, 1,024
    /// by default).
    static let batchBuckets: [Double] = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096]
    /// The histogram buckets of `switchboard_message_commit_seconds`.
    static let commitBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .microseconds(2500), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
    ]
    /// The name of the batch size histogram (its buckets are set on the factory by name).
    static let batchLabel = "switchboard_message_batch_writes"
    /// The name of the commit time histogram (its buckets are set on the factory by name).
    static let commitLabel = "switchboard_message_commit_seconds"

    /// Writes waiting in this writer (not yet in a batch): its pending writes and the parts of a refused batch
    /// waiting to be retried.
    let backlog: CoreMetrics.Gauge
    /// Writes per batch sent to the database (retried parts of a refused batch count as batches of their own).
    let batchWrites: CoreMetrics.Recorder
    /// A batch's transaction on its connection, from BEGIN to COMMIT's answer (committed batches only; the wait
    /// for the connection is `switchboard_database_pool_wait_seconds{queue}`).
    let commitTime: CoreMetrics.Timer

    /// Makes the instruments of writer `index` in `metrics`' registry.
    init(writer index: Int, metrics: ServerMetrics) {
        let factory = metrics.factory
        backlog = CoreMetrics.Gauge(
            label: "switchboard_message_writer_backlog", dimensions: [("writer", String(index))], factory: factory)
        // The same instrument for every writer: the registry returns the one already made under this name.
        batchWrites = CoreMetrics.Recorder(label: Self.batchLabel, aggregate: true, factory: factory)
        commitTime = CoreMetrics.Timer(label: Self.commitLabel, factory: factory)
    }
}
