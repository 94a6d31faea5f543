//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardStore

/// Issue 37, item 1: the pool's admission policy, step by step (no database, no clock).
@Suite("Fair lease queue")
struct FairLeaseQueueTests {
    typealias Queue = FairLeaseQueue<String>

    static func limits(maxWaiters: Int = 10_000, perOwner: Int = 10_000, connections: Int = 1) -> Queue.Limits {
        Queue.Limits(maxWaiters: maxWaiters, maxWaitersPerOwner: perOwner, connectionsPerOwner: connections)
    }

    /// Arrivals numbered from 1 (the id is the name's number).
    struct Driver {
        var queue: Queue
        var next: UInt64 = 0

        init(size: Int, limits: Queue.Limits) { queue = Queue(size: size, limits: limits) }

        mutating func arrive(
            _ name: String, key: UInt64?, urgent: Bool = false, bounded: Bool = true
        ) -> (Queue.Arrival, id: UInt64) {
            next += 1
            return (queue.arrive(name, id: next, key: key, urgent: urgent, bounded: bounded), next)
        }

        /// Releases `index` again and again, each time to the next waiter: the names served, in order.
        mutating func serve(_ index: Int, times: Int) -> [String] {
            var served: [String] = []
            for _ in 0..<times {
                guard let (waiter, _) = queue.release(index) else { break }
                served.append(waiter)
            }
            return served
        }
    }

    @Test func aSmallOwnerIsServedWithinOneRoundBehindABacklog() {
        var d = Driver(size: 1, limits: Self.limits())
        #expect(d.arrive("a0", key: 1).0 == .leased(0))
        for n in 1...1000 { #expect(d.arrive("a\(n)", key: 1).0 == .queued) }
        #expect(d.arrive("b", key: 2).0 == .queued)
        #expect(d.queue.waiting == 1001)
        // a0's connection freed: a1 (A's turn came first), then B, then the rest of A in its order.
        #expect(d.serve(0, times: 5) == ["a1", "b", "a2", "a3", "a4"])
    }

    @Test func urgentCallersGoFirstWithoutAShareAndInTheirOrder() {
        var d = Driver(size: 1, limits: Self.limits())
        #expect(d.arrive("a0", key: 1).0 == .leased(0))
        _ = d.arrive("a1", key: 1)
        _ = d.arrive("b1", key: 2)
        _ = d.arrive("u1", key: nil, urgent: true, bounded: false)
        _ = d.arrive("u2", key: 1, urgent: true, bounded: false)
        #expect(d.queue.urgentWaiting == 2)
        #expect(d.serve(0, times: 4) == ["u1", "u2", "a1", "b1"])
    }

    @Test func orderWithinAnOwnerIsKeptAndOwnersTakeTurns() {
        var d = Driver(size: 1, limits: Self.limits())
        _ = d.arrive("hold", key: 9)
        for n in 1...3 {
            _ = d.arrive("a\(n)", key: 1)
            _ = d.arrive("k\(n)", key: nil, bounded: false)
        }
        _ = d.arrive("b1", key: 2)
        #expect(d.serve(0, times: 7) == ["a1", "k1", "b1", "a2", "k2", "a3", "k3"])
        // Nobody waits: the connection is idle again.
        #expect(d.queue.release(0) == nil)
        #expect(d.queue.idleCount == 1)
    }

    @Test func anOwnerHoldsAtMostItsShareAndANewcomerFindsAConnection() {
        var d = Driver(size: 3, limits: Self.limits(connections: 2))
        #expect(d.arrive("a1", key: 1).0 == .leased(0))
        #expect(d.arrive("a2", key: 1).0 == .leased(1))
        // At its share: A waits although a connection is idle.
        #expect(d.arrive("a3", key: 1).0 == .queued)
        #expect(d.queue.idleCount == 1)
        #expect(d.arrive("b1", key: 2).0 == .leased(2))
        // B's connection freed: A is at its share, nobody else waits, so it goes idle.
        #expect(d.queue.release(2) == nil)
        #expect(d.queue.leases(key: 1) == 2)
        // One of A's freed: A's next takes it.
        #expect(d.queue.release(0).map { $0.waiter } == "a3")
        #expect(d.queue.leases(key: 1) == 2)
        #expect(d.queue.waiting == 0)
    }

    @Test func theKeylessClassHasNoShare() {
        var d = Driver(size: 2, limits: Self.limits(connections: 1))
        #expect(d.arrive("k1", key: nil, bounded: false).0 == .leased(0))
        #expect(d.arrive("k2", key: nil, bounded: false).0 == .leased(1))
        #expect(d.queue.inUse == 2)
    }

    @Test func boundedCallersAreRefusedBeyondTheTotalAndTheOwnersBound() {
        var d = Driver(size: 1, limits: Self.limits(maxWaiters: 3, perOwner: 2))
        _ = d.arrive("hold", key: 9)
        #expect(d.arrive("a1", key: 1).0 == .queued)
        #expect(d.arrive("a2", key: 1).0 == .queued)
        // A's bound.
        #expect(d.arrive("a3", key: 1).0 == .overloaded)
        #expect(d.arrive("b1", key: 2).0 == .queued)
        // The total bound, for every bounded caller; unbounded and urgent callers still wait.
        #expect(d.arrive("c1", key: 3).0 == .overloaded)
        #expect(d.arrive("k1", key: nil, bounded: false).0 == .queued)
        #expect(d.arrive("u1", key: 3, urgent: true, bounded: false).0 == .queued)
        #expect(d.queue.waiting == 4)
        #expect(d.serve(0, times: 5) == ["u1", "a1", "b1", "k1", "a2"])
    }

    @Test func aCancelledWaiterLeavesAtOnceAndItsOwnerLosesItsTurnOnlyWhenEmpty() {
        var d = Driver(size: 1, limits: Self.limits())
        _ = d.arrive("hold", key: 9)
        let a1 = d.arrive("a1", key: 1).id
        let a2 = d.arrive("a2", key: 1).id
        _ = d.arrive("b1", key: 2)
        let u = d.arrive("u", key: nil, urgent: true, bounded: false).id
        #expect(d.queue.cancel(a1, key: 1, urgent: false) == "a1")
        #expect(d.queue.cancel(u, key: nil, urgent: true) == "u")
        // Not waiting (any more): nothing.
        #expect(d.queue.cancel(a1, key: 1, urgent: false) == nil)
        #expect(d.queue.cancel(a2, key: 2, urgent: false) == nil)
        #expect(d.queue.waiting == 2)
        #expect(d.queue.urgentWaiting == 0)
        #expect(d.queue.cancel(a2, key: 1, urgent: false) == "a2")
        // A emptied keeps its place in the turn until it comes (skipped then if still empty): A's next arrival has it.
        _ = d.arrive("a3", key: 1)
        _ = d.arrive("b2", key: 2)
        #expect(d.serve(0, times: 4) == ["a3", "b1", "b2"])
        #expect(d.queue.waiting == 0)
        #expect(d.queue.idleCount == 1)
    }

    @Test func closeHandsBackEveryWaiterAndLeasesAreStillReturned() {
        var d = Driver(size: 2, limits: Self.limits(connections: 1))
        #expect(d.arrive("a1", key: 1).0 == .leased(0))
        #expect(d.arrive("b1", key: 2).0 == .leased(1))
        _ = d.arrive("a2", key: 1)
        _ = d.arrive("u", key: nil, urgent: true, bounded: false)
        _ = d.arrive("b2", key: 2)
        #expect(d.queue.close() == ["u", "a2", "b2"])
        #expect(d.queue.waiting == 0)
        #expect(d.queue.release(1) == nil)
        #expect(d.queue.release(0) == nil)
        #expect(d.queue.idleCount == 2)
        #expect(d.queue.leases(key: 1) == 0)
    }

    /// Many owners, random arrivals and releases: every caller is served exactly once, each owner in its order, no
    /// owner above its share, and nobody waits while a connection it may take is idle.
    @Test func randomScheduleKeepsTheInvariants() {
        var rng = SplitMix(seed: 37)
        var d = Driver(size: 4, limits: Self.limits(connections: 2))
        var held: [Int: String] = [:]
        var served: [UInt64: [Int]] = [:]
        var arrived = 0
        func record(_ name: String) {
            let parts = name.split(separator: "-")
            served[UInt64(parts[0])!, default: []].append(Int(parts[1])!)
        }
        var counts: [UInt64: Int] = [:]
        for _ in 0..<5000 {
            if rng.next() % 3 != 0 {
                let key = rng.next() % 5
                counts[key, default: 0] += 1
                let name = "\(key)-\(counts[key]!)"
                arrived += 1
                if case .leased(let index) = d.arrive(name, key: key).0 {
                    #expect(held[index] == nil)
                    held[index] = name
                    record(name)
                }
            } else if let index = held.keys.sorted().first(where: { _ in rng.next() % 2 == 0 }) ?? held.keys.first {
                held[index] = nil
                if let (name, _) = d.queue.release(index) {
                    held[index] = name
                    record(name)
                }
            }
            for key: UInt64 in 0..<5 {
                #expect(d.queue.leases(key: key) <= 2)
                if d.queue.waiting(key: key) > 0 && d.queue.leases(key: key) < 2 {
                    #expect(d.queue.idleCount == 0)
                }
            }
        }
        while let index = held.keys.first {
            held[index] = nil
            if let (name, _) = d.queue.release(index) {
                held[index] = name
                record(name)
            }
        }
        #expect(d.queue.waiting == 0)
        #expect(served.values.map(\.count).reduce(0, +) == arrived)
        for (key, order) in served { #expect(order == Array(1...counts[key]!)) }
    }
}

/// A small deterministic generator (no global randomness in tests).
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
