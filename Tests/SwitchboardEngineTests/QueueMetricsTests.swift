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
import SwitchboardStore
import Synchronization
import Testing

@testable import SwitchboardServer

/// The value of the sample `series` (a name with its labels, as `/metrics` writes it), or nil when absent.
func metricSample(_ text: String, _ series: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}

/// Issue 36, item 5: the two queues that decide latency under load publish what they hold and how long their work
/// waits: the database pool (callers waiting, connections in use, wait time, `overloaded` refusals) and the message
/// writers (backlog, writes per batch, commit time), read here from the server's own `/metrics` text.
@Suite struct QueueMetricsTests {
    /// A writer whose batch waits for the pool's only connection: the batch and the pool's waiter show at once,
    /// writes submitted meanwhile are its backlog, and once the connection is free both batches commit and the
    /// histograms count them.
    @Test func aWriterWaitingForThePoolShowsItsBacklogAndThePoolsQueue() async throws {
        let db = EngineTestDatabase.shared
        let connectionString = try #require(db.database?.connectionString)
        let pool = try DatabasePool(connectionString: connectionString, size: 1, logger: testLogger())
        defer { pool.close() }
        let metrics = ServerMetrics(loopCount: 1)
        metrics.observe(pool)
        var configuration = MessagingConfiguration()
        configuration.writers = 1  // as many writers as connections: its commits wait in the bounded queue
        let registry = SessionRegistry()
        let outbox = FakeOutbox()
        let hub = MessageHub(
            registry: registry, outbox: outbox, clock: ManualClock(), pool: pool, configuration: configuration,
            metrics: metrics, logger: testLogger())
        let ann = try await db.user("Ann")
        let bob = try await db.user("Bob")
        try await db.befriend(ann, bob)
        let direct = try await pool.withConnection { db in try MessageStore.directConversation(db, ann, bob) }
        let scrape = { String(decoding: metrics.render(), as: UTF8.self) }
        let value = { (series: String) in metricSample(scrape(), series) }
        #expect(value("switchboard_database_pool_size") == 1)

        // The pool's only connection is held until `release`.
        let release = DispatchSemaphore(value: 0)
        let held = DispatchSemaphore(value: 0)
        pool.withConnection(
            on: DispatchQueue(label: "holder"),
            { _ in
                held.signal()
                release.wait()
            }
        ) { _ in }
        #expect(held.wait(timeout: .now() + 10) == .success)
        #expect(value("switchboard_database_pool_in_use") == 1)

        let results = ResultBox()
        let send = { (n: Int) in
            hub.submit(
                WriteRequest(
                    conversationId: direct, actor: ann,
                    action: .send(kind: .text, body: "m\(n)", clientId: nil, voiceId: nil),
                    completion: { results.add($0) }))
        }
        // The first write starts a batch, which waits for the connection.
        send(0)
        #expect(await outbox.wait { value("switchboard_message_batch_writes_count") == 1 })
        #expect(await outbox.wait { value("switchboard_database_pool_waiters{queue=\"bounded\"}") == 1 })
        #expect(value("switchboard_database_pool_waiters{queue=\"urgent\"}") == 0)
        // Three more wait in the writer behind it.
        for n in 1...3 { send(n) }
        #expect(await outbox.wait { value("switchboard_message_writer_backlog{writer=\"0\"}") == 3 })

        release.signal()
        #expect(await outbox.wait { results.count == 4 })
        #expect(results.successes == 4)
        let text = scrape()
        #expect(metricSample(text, "switchboard_message_writer_backlog{writer=\"0\"}") == 0)
        #expect(metricSample(text, "switchboard_message_batch_writes_count") == 2)
        #expect(metricSample(text, "switchboard_message_batch_writes_sum") == 4)
        #expect(metricSample(text, "switchboard_message_commit_seconds_count") == 2)
        #expect((metricSample(text, "switchboard_message_commit_seconds_sum") ?? 0) > 0)
        #expect(metricSample(text, "switchboard_database_pool_waiters{queue=\"bounded\"}") == 0)
        // The holder and the first batch waited or not; each lease is counted, the batch's wait was long.
        let waits = metricSample(text, "switchboard_database_pool_wait_seconds_count{queue=\"bounded\"}") ?? 0
        #expect(waits >= 4)  // the look-up, the holder, two batches
        #expect((metricSample(text, "switchboard_database_pool_wait_seconds_sum{queue=\"bounded\"}") ?? 0) > 0)
        #expect(metricSample(text, "switchboard_database_pool_overloaded_total") == 0)
    }
}

/// The results of writes, collected from the writer's queue.
private final class ResultBox: Sendable {
    // protected by its own lock
    private let results = Mutex<[Result<ChatMessage, ServiceError>]>([])
    func add(_ result: Result<ChatMessage, ServiceError>) { results.withLock { $0.append(result) } }
    var count: Int { results.withLock { $0.count } }
    var successes: Int { results.withLock { $0.count { if case .success = $0 { true } else { false } } } }
}
