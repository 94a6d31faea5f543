//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Who gets a ``DatabasePool`` connection, and when: the pool's admission policy as a pure state machine (no lock,
/// no clock, no connection; the pool holds it under its lock, and tests drive it step by step).
///
/// ## Policy
/// - **Urgent** callers (a message writer's commit, a call's row) are served first, in their order, never refused
///   and never held back by a share.
/// - Every other caller belongs to a **class**: its owner key (the server passes the request's connection), or, for
///   callers without a key, one class of their own. Each class has a FIFO queue (its order is kept), and the
///   classes with waiters take turns (**round-robin**): a freed connection goes to the head of the next class in
///   turn, which then moves to the end of the turn. A class with 1,000 waiters and one with 1 are served
///   alternately, so the second waits for at most one lease of each other class, not for the first's backlog.
/// - **Share**: one owner key holds at most ``Limits/connectionsPerOwner`` connections at once; its further callers
///   wait (even while a connection is idle) so that a newcomer finds one. The keyless class (the server's own
///   owners, which bound their own work) has no share.
/// - **Bounds**: a bounded caller (a request task) is refused (``Arrival/overloaded``) when ``Limits/maxWaiters``
///   non-urgent callers wait in all, or when ``Limits/maxWaitersPerOwner`` wait with its key.
/// - A waiter that is **cancelled** leaves its queue at once (``cancel(_:)``); ``close()`` hands back every waiter.
struct FairLeaseQueue<Waiter> {
    /// The configurable limits.
    struct Limits: Equatable, Sendable {
        /// Non-urgent callers waiting before a bounded one is refused.
        var maxWaiters: Int
        /// Callers of one owner key waiting before a bounded one of that key is refused.
        var maxWaitersPerOwner: Int
        /// Connections one owner key may hold at once (at least 1).
        var connectionsPerOwner: Int
    }

    /// What became of an arriving caller.
    enum Arrival: Equatable {
        /// A connection was idle and the caller may take it: this one.
        case leased(Int)
        /// The caller waits (``release(_:)`` or ``cancel(_:)`` hands it on).
        case queued
        /// Too many callers wait (in all, or with its key): refuse it.
        case overloaded
    }

    /// A class of callers: an owner key, or none (keyless callers).
    private typealias Owner = UInt64?

    private struct Entry {
        let id: UInt64
        let waiter: Waiter
    }

    /// One class's waiters (oldest first from `head`) and the connections it holds.
    private struct OwnerQueue {
        var entries: [Entry] = []
        var head = 0
        var leases = 0
        /// In `turns` (it has waiters).
        var inTurn = false
        var count: Int { entries.count - head }
    }

    let limits: Limits
    /// Idle connections (the last freed is leased first).
    private var idle: [Int]
    /// Per connection: who holds it (nil: idle, or an urgent lease, which counts against no share).
    private var holder: [Owner?]
    private var urgent: [Entry] = []
    private var urgentHead = 0
    private var owners: [Owner: OwnerQueue] = [:]
    /// The classes with waiters in their turn order, from `turnHead`.
    private var turns: [Owner] = []
    private var turnHead = 0
    /// Non-urgent waiters in all.
    private(set) var waiting = 0

    /// A queue over connections `0..<size`, all idle.
    init(size: Int, limits: Limits) {
        precondition(size >= 1, "a pool needs at least one connection")
        precondition(limits.connectionsPerOwner >= 1, "an owner needs at least one connection")
        precondition(limits.maxWaiters >= 0 && limits.maxWaitersPerOwner >= 0, "negative bound")
        self.limits = limits
        idle = Array((0..<size).reversed())
        holder = Array(repeating: nil, count: size)
    }

    /// Urgent waiters.
    var urgentWaiting: Int { urgent.count - urgentHead }

    /// Idle connections.
    var idleCount: Int { idle.count }

    /// Connections held now.
    var inUse: Int { holder.count - idle.count }

    /// Waiters of owner `key` (nil: the keyless class).
    func waiting(key: UInt64?) -> Int { owners[key]?.count ?? 0 }

    /// Connections held by owner `key` (urgent leases not counted).
    func leases(key: UInt64?) -> Int { owners[key]?.leases ?? 0 }

    /// A caller arrives with `id` (unique among the waiters, for `cancel`).
    /// - Parameters:
    ///   - key: Its owner (nil: the keyless class).
    ///   - urgent: Served first, never refused, never held back by a share.
    ///   - bounded: Refused beyond the bounds (else it always waits).
    mutating func arrive(_ waiter: Waiter, id: UInt64, key: UInt64?, urgent isUrgent: Bool, bounded: Bool) -> Arrival {
        if isUrgent {
            if let index = idle.popLast() { return .leased(index) }
            urgent.append(Entry(id: id, waiter: waiter))
            return .queued
        }
        var queue = owners.removeValue(forKey: key) ?? OwnerQueue()
        defer { store(key, queue) }
        if queue.count == 0 && mayLease(key, queue), let index = idle.popLast() {
            queue.leases += 1
            holder[index] = .some(key)
            return .leased(index)
        }
        if bounded && (waiting >= limits.maxWaiters || (key != nil && queue.count >= limits.maxWaitersPerOwner)) {
            return .overloaded
        }
        queue.entries.append(Entry(id: id, waiter: waiter))
        waiting += 1
        if !queue.inTurn {
            queue.inTurn = true
            turns.append(key)
        }
        return .queued
    }

    /// Connection `index` is free again: who takes it (nil: it is idle now).
    mutating func release(_ index: Int) -> (waiter: Waiter, urgent: Bool)? {
        if let owner = holder[index] {
            holder[index] = nil
            if var queue = owners.removeValue(forKey: owner) {
                queue.leases -= 1
                store(owner, queue)
            }
        }
        if urgentHead < urgent.count {
            let entry = urgent[urgentHead]
            urgentHead += 1
            if urgentHead == urgent.count {
                urgent.removeAll(keepingCapacity: true)
                urgentHead = 0
            }
            return (entry.waiter, true)
        }
        guard let (owner, entry) = nextInTurn() else {
            idle.append(index)
            return nil
        }
        holder[index] = .some(owner)
        return (entry.waiter, false)
    }

    /// Removes waiter `id` of owner `key` if it still waits (its task was cancelled).
    mutating func cancel(_ id: UInt64, key: UInt64?, urgent isUrgent: Bool) -> Waiter? {
        if isUrgent {
            guard let at = urgent[urgentHead...].firstIndex(where: { $0.id == id }) else { return nil }
            return urgent.remove(at: at).waiter
        }
        guard var queue = owners.removeValue(forKey: key) else { return nil }
        defer { store(key, queue) }
        guard let at = queue.entries[queue.head...].firstIndex(where: { $0.id == id }) else { return nil }
        let entry = queue.entries.remove(at: at)
        waiting -= 1
        // A class left without waiters stays in `turns` until its turn comes (then skipped and dropped).
        return entry.waiter
    }

    /// Closes: every waiter, urgent ones first, then the classes in turn order (each in its order).
    mutating func close() -> [Waiter] {
        var all = urgent[urgentHead...].map(\.waiter)
        for owner in turns[turnHead...] {
            guard let queue = owners[owner] else { continue }
            all += queue.entries[queue.head...].map(\.waiter)
        }
        urgent = []
        urgentHead = 0
        turns = []
        turnHead = 0
        for (owner, queue) in owners {
            owners[owner] = queue.leases > 0 ? OwnerQueue(leases: queue.leases) : nil
        }
        waiting = 0
        return all
    }

    /// Whether `key` may take one more connection (the keyless class always may).
    private func mayLease(_ key: Owner, _ queue: OwnerQueue) -> Bool {
        key == nil || queue.leases < limits.connectionsPerOwner
    }

    /// The head of the next class in turn that may take a connection; that class moves to the end of the turn.
    /// Classes at their share keep their place relative to each other (moved to the end, in order).
    private mutating func nextInTurn() -> (Owner, Entry)? {
        var looked = 0
        let classes = turns.count - turnHead
        var found: (Owner, Entry)?
        while looked < classes && found == nil {
            looked += 1
            let owner = turns[turnHead]
            turnHead += 1
            guard var queue = owners.removeValue(forKey: owner) else { continue }
            if queue.count > 0 && mayLease(owner, queue) {
                let entry = queue.entries[queue.head]
                queue.head += 1
                if queue.head == queue.entries.count {
                    queue.entries.removeAll(keepingCapacity: queue.entries.count <= 64)
                    queue.head = 0
                }
                queue.leases += 1
                waiting -= 1
                found = (owner, entry)
            }
            if queue.count > 0 {
                turns.append(owner)
            } else {
                // Served its last waiter, or emptied by cancellations: out of the turn.
                queue.inTurn = false
            }
            store(owner, queue)
        }
        if turnHead > 64 && turnHead * 2 > turns.count {
            turns.removeFirst(turnHead)
            turnHead = 0
        }
        return found
    }

    /// Keeps a class's record while it has waiters, holds connections or has a place in the turn.
    private mutating func store(_ owner: Owner, _ queue: OwnerQueue) {
        owners[owner] = queue.count > 0 || queue.leases > 0 || queue.inTurn ? queue : nil
    }
}
