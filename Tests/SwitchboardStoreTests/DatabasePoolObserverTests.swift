//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardStore
import Synchronization
import Testing

/// Records what a pool reports.
private final class RecordingObserver: DatabasePoolObserver {
    /// One lease as reported.
    struct Lease: Equatable {
        /// Whether it asked as urgent.
        var urgent: Bool
        /// Whether it waited at all.
        var waited: Bool
    }

    // protected by its own lock
    private let recorded = Mutex<(leases: [Lease], refusals: Int)>(([], 0))

    func leased(urgent: Bool, waitedNanoseconds: UInt64) {
        recorded.withLock { $0.leases.append(Lease(urgent: urgent, waited: waitedNanoseconds > 0)) }
    }

    func refusedOverloaded() { recorded.withLock { $0.refusals += 1 } }

    /// The leases reported so far, in order.
    var leases: [Lease] { recorded.withLock { $0.leases } }
    /// The refusals reported so far.
    var refusals: Int { recorded.withLock { $0.refusals } }
}

/// Waits (bounded: 10 s) until `condition` holds.
private func waitUntil(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Issue 36, item 5: the pool reports each lease's wait and each `overloaded` refusal, and its gauges (connections
/// in use, callers waiting in the bounded and the urgent queue) can be read at any time.
@Suite("DatabasePool observer")
struct DatabasePoolObserverTests {
    @Test func leasesWaitsRefusalsAndGaugesAreReported() async throws {
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(), size: 1, logger: quietLogger(), maxWaiters: 1)
        defer { pool.close() }
        let observer = RecordingObserver()
        pool.setObserver(observer)
        #expect(pool.statistics == DatabasePool.Statistics(size: 1, inUse: 0, waiting: 0, urgentWaiting: 0))

        // The only connection is held until `release`: an idle connection, no wait.
        let release = DispatchSemaphore(value: 0)
        let holder = Task { try await pool.withConnection { _ in release.wait() } }
        #expect(await waitUntil { pool.statistics.inUse == 1 })
        #expect(observer.leases == [.init(urgent: false, waited: false)])

        // One caller in the bounded queue, one urgent caller.
        let waiter = Task { try await pool.withConnection { try $0.query("SELECT 1").first?.int(0) } }
        let done = DispatchSemaphore(value: 0)
        pool.withConnection(on: DispatchQueue(label: "urgent"), urgent: true, { _ in 2 }) { _ in done.signal() }
        #expect(await waitUntil { pool.waiterCount == 2 })
        #expect(pool.statistics == DatabasePool.Statistics(size: 1, inUse: 1, waiting: 1, urgentWaiting: 1))

        // The bounded queue is full: the next async caller is refused, and counted.
        await #expect(throws: PostgresError.self) { try await pool.withConnection { _ in 0 } }
        #expect(observer.refusals == 1)

        release.signal()
        try await holder.value
        #expect(try await waiter.value == 1)
        #expect(done.wait(timeout: .now() + 10) == .success)
        // The urgent caller was served first; both waited.
        #expect(
            observer.leases == [
                .init(urgent: false, waited: false), .init(urgent: true, waited: true),
                .init(urgent: false, waited: true),
            ])
        #expect(await waitUntil { pool.statistics == .init(size: 1, inUse: 0, waiting: 0, urgentWaiting: 0) })

        // Without an observer nothing is reported.
        pool.setObserver(nil)
        #expect(try await pool.withConnection { try $0.query("SELECT 3").first?.int(0) } == 3)
        #expect(observer.leases.count == 3)
    }
}
