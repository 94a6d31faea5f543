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

/// Waits (bounded: 10 s) until `condition` holds.
private func waitUntil(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<1000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A flag set from another thread.
private final class TestFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .relaxed) }
    var isSet: Bool { value.load(ordering: .relaxed) }
}

/// Names appended from other threads, in order.
private final class OrderLog: Sendable {
    private let names = Mutex<[String]>([])
    func append(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
}

/// Issue 14, item 4: the pool's wait queue is bounded, and a cancelled waiter never runs its body.
@Suite("DatabasePool admission")
struct DatabasePoolAdmissionTests {
    @Test func beyondMaxWaitersCallersAreRefusedAtOnce() async throws {
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(), size: 1, logger: quietLogger(), maxWaiters: 2)
        defer { pool.close() }
        let release = DispatchSemaphore(value: 0)
        // The only connection is held until `release`.
        let holder = Task { try await pool.withConnection { _ in release.wait() } }
        let waiters = (0..<2).map { n in
            Task { try await pool.withConnection { try $0.query("SELECT $1::int", [.int(n)]).first?.int(0) } }
        }
        #expect(await waitUntil { pool.waiterCount == 2 })
        await #expect(throws: PostgresError.self) {
            do { try await pool.withConnection { _ in 0 } } catch let error as PostgresError {
                #expect(error.kind == .overloaded)
                throw error
            }
        }
        // The callback variant (owners with their own bounded queues) is not refused.
        let done = DispatchSemaphore(value: 0)
        pool.withConnection(on: DispatchQueue(label: "t"), { _ in 1 }) { _ in done.signal() }
        release.signal()
        try await holder.value
        for (n, waiter) in waiters.enumerated() { #expect(try await waiter.value == n) }
        #expect(done.wait(timeout: .now() + 10) == .success)
    }

    @Test func aCancelledWaiterNeverRunsItsBody() async throws {
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(), size: 1, logger: quietLogger())
        defer { pool.close() }
        let release = DispatchSemaphore(value: 0)
        let ran = TestFlag()
        let held = TestFlag()
        let holder = Task {
            try await pool.withConnection { _ in
                held.set()
                release.wait()
            }
        }
        #expect(await waitUntil { held.isSet })
        let waiter = Task { try await pool.withConnection { _ in ran.set() } }
        #expect(await waitUntil { pool.waiterCount == 1 })
        waiter.cancel()
        release.signal()
        try await holder.value
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(!ran.isSet)
        // The connection went back to the pool.
        #expect(try await pool.withConnection { try $0.query("SELECT 7").first?.int(0) } == 7)
    }

    /// An urgent caller (a message writer's commit, a call's row) is served before the callers that were waiting
    /// without urgency, whatever their number; among themselves each kind keeps its order.
    @Test func urgentCallersGoAheadOfTheQueue() async throws {
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(), size: 1, logger: quietLogger())
        defer { pool.close() }
        let release = DispatchSemaphore(value: 0)
        let held = TestFlag()
        let order = Mutex<[String]>([])
        let done = DispatchGroup()
        let queue = DispatchQueue(label: "urgent-test")
        done.enter()
        pool.withConnection(
            on: queue,
            { _ in
                held.set()
                release.wait()
            }
        ) { _ in done.leave() }
        #expect(await waitUntil { held.isSet })
        for n in 0..<5 {
            done.enter()
            pool.withConnection(on: queue, { _ in order.withLock { $0.append("read \(n)") } }) { _ in done.leave() }
        }
        for n in 0..<2 {
            done.enter()
            pool.withConnection(on: queue, urgent: true, { _ in order.withLock { $0.append("urgent \(n)") } }) { _ in
                done.leave()
            }
        }
        #expect(await waitUntil { pool.waiterCount == 7 })
        release.signal()
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(order.withLock { $0 } == ["urgent 0", "urgent 1", "read 0", "read 1", "read 2", "read 3", "read 4"])
    }

    /// Issue 37: owners (the request's connection) take turns for a connection, each in its order; a cancelled
    /// waiter leaves the queue at once; one owner's waiters are bounded on their own.
    @Test func ownersTakeTurnsAndACancelledWaiterLeavesAtOnce() async throws {
        let pool = try DatabasePool(
            connectionString: try TestDatabase.shared.makeDatabase(), size: 1, logger: quietLogger(), maxWaiters: 100,
            maxWaitersPerOwner: 3)
        defer { pool.close() }
        let release = DispatchSemaphore(value: 0)
        let held = TestFlag()
        let order = OrderLog()
        let holder = Task {
            try await pool.withConnection(key: 9) { _ in
                held.set()
                release.wait()
            }
        }
        #expect(await waitUntil { held.isSet })
        var tasks: [Task<Void, any Error>] = []
        // Three of owner 1 (its bound), then one of owner 2, each queued before the next arrives.
        for name in ["a1", "a2", "a3", "b1"] {
            let key: UInt64 = name.hasPrefix("a") ? 1 : 2
            let before = pool.waiterCount
            tasks.append(Task { try await pool.withConnection(key: key) { _ in order.append(name) } })
            #expect(await waitUntil { pool.waiterCount == before + 1 })
        }
        // Owner 1's fourth is refused at once; owner 2 still waits.
        await #expect(throws: PostgresError.self) { try await pool.withConnection(key: 1) { _ in 0 } }
        let cancelled = Task { try await pool.withConnection(key: 2) { _ in order.append("b2") } }
        #expect(await waitUntil { pool.waiterCount == 5 })
        cancelled.cancel()
        // Gone from the queue while the connection is still held.
        #expect(await waitUntil { pool.waiterCount == 4 })
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        release.signal()
        try await holder.value
        for task in tasks { try await task.value }
        #expect(order.all == ["a1", "b1", "a2", "a3"])
    }
}
