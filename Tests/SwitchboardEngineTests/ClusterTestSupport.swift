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
import Synchronization

@testable import SwitchboardServer

/// A bus in memory: node number to the function that takes its messages (synchronously, in order).
final class MemoryBus: ClusterBus, Sendable {
    private let nodes = Mutex<[UInt32: @Sendable ([UInt8]) -> Void]>([:])
    /// Messages sent per destination node (broadcasts not counted).
    let sent = Mutex<[UInt32: Int]>([:])
    /// Drops every message while true (a lost bus).
    let dropping = Atomic<Bool>(false)

    func join(_ node: UInt32, _ receive: @escaping @Sendable ([UInt8]) -> Void) {
        nodes.withLock { $0[node] = receive }
    }

    /// Refuses every message sent to one node while true (Redis answering the PUBLISH with an error or not at all):
    /// nothing is delivered and the sender is told.
    let refusing = Atomic<Bool>(false)
    /// Keeps the answers to messages sent to one node while true (Redis slow to answer), until `answerHeld()`.
    let holding = Atomic<Bool>(false)
    private let held = Mutex<[@Sendable () -> Void]>([])

    func send(_ bytes: [UInt8], to node: UInt32, accepted: (@Sendable (Bool) -> Void)?) {
        sent.withLock { $0[node, default: 0] += 1 }
        if refusing.load(ordering: .relaxed) {
            accepted?(false)
            return
        }
        if !dropping.load(ordering: .relaxed) { nodes.withLock { $0[node] }?(bytes) }
        guard let accepted else { return }
        if holding.load(ordering: .relaxed) {
            held.withLock { $0.append { accepted(true) } }
        } else {
            accepted(true)
        }
    }

    /// Answers the messages whose answers were kept, in order.
    func answerHeld() {
        for answer in held.withLock({ h in
            defer { h = [] }; return h
        }) { answer() }
    }

    /// How many answers are kept.
    var heldCount: Int { held.withLock { $0.count } }

    func broadcast(_ bytes: [UInt8]) {
        guard !dropping.load(ordering: .relaxed) else { return }
        for receive in nodes.withLock({ Array($0.values) }) { receive(bytes) }
    }
}

/// The cluster's shared state in memory, with heartbeats that expire on the wall clock; the coordinator lease too,
/// unless the store is made for a rig whose nodes claim by hand (`leaseExpiresOnTheWallClock: false`).
final class MemoryClusterStore: ClusterStore, Sendable {
    private struct State {
        var next: UInt32 = 0
        var alive: [UInt32: Date] = [:]
        var directories: [UInt32: (seq: UInt64, devices: [UInt64: DirectoryEntry])] = [:]
        var coordinator: (node: UInt32, until: Date)?
        var liveCalls: [UInt8]?
    }
    private let state = Mutex(State())
    let bus: MemoryBus
    /// Every call fails while true (Redis down).
    let failing = Atomic<Bool>(false)
    /// The nodes whose heartbeat failed because of `failing` (a test empties it).
    let refusedHeartbeats = Mutex<Set<UInt32>>([])

    /// Whether the coordinator lease runs out on the wall clock. False for a rig that claims by hand on a manual
    /// clock: its lease then ends only by `expireCoordinator()` (a node's death), not because the machine was slow
    /// between two claims.
    private let leaseExpiresOnTheWallClock: Bool

    init(bus: MemoryBus, leaseExpiresOnTheWallClock: Bool = true) {
        self.bus = bus
        self.leaseExpiresOnTheWallClock = leaseExpiresOnTheWallClock
    }

    private func holds(_ lease: (node: UInt32, until: Date), at now: Date) -> Bool {
        !leaseExpiresOnTheWallClock || lease.until > now
    }

    struct Down: Error {}

    private func check() throws { if failing.load(ordering: .relaxed) { throw Down() } }

    func allocateNode() throws -> UInt32 {
        try check()
        return state.withLock {
            $0.next += 1
            return $0.next
        }
    }

    func heartbeat(node: UInt32, ttlMilliseconds: Int) throws -> Bool {
        if failing.load(ordering: .relaxed) {
            refusedHeartbeats.withLock { _ = $0.insert(node) }
            throw Down()
        }
        return state.withLock {
            $0.alive.updateValue(Date().addingTimeInterval(Double(ttlMilliseconds) / 1000), forKey: node) == nil
        }
    }

    func nodes() throws -> (live: Set<UInt32>, dead: Set<UInt32>) {
        try check()
        return state.withLock { s in
            let now = Date()
            return (Set(s.alive.filter { $0.value > now }.keys), Set(s.alive.filter { $0.value <= now }.keys))
        }
    }

    func forget(node: UInt32) throws {
        try check()
        state.withLock {
            $0.alive[node] = nil
            $0.directories[node] = nil
        }
    }

    func record(
        node: UInt32, lastSeq: UInt64, changes: [(ClusterWire.DirectoryChange, DirectoryEntry?)], message: [UInt8]
    ) throws {
        try check()
        state.withLock { s in
            var d = s.directories[node] ?? (0, [:])
            d.seq = lastSeq
            for (change, entry) in changes {
                switch change {
                case .attached(let c, _, _), .status(let c, _, _): if let entry { d.devices[c] = entry }
                case .detached(let c, _): d.devices[c] = nil
                case .sync: break
                }
            }
            s.directories[node] = d
        }
        bus.broadcast(message)
    }

    func replace(node: UInt32, seq: UInt64, devices: [DirectoryEntry]) throws {
        try check()
        state.withLock {
            $0.directories[node] = (
                seq, Dictionary(devices.map { ($0.connection, $0) }, uniquingKeysWith: { _, b in b })
            )
        }
    }

    func snapshot(node: UInt32) throws -> (seq: UInt64, devices: [DirectoryEntry]) {
        try check()
        return state.withLock { s in
            let d = s.directories[node] ?? (0, [:])
            return (d.seq, Array(d.devices.values))
        }
    }

    func claimCoordinator(node: UInt32, ttlMilliseconds: Int) throws -> UInt32 {
        try check()
        return state.withLock { s in
            let now = Date()
            if let c = s.coordinator, holds(c, at: now), c.node != node { return c.node }
            s.coordinator = (node, now.addingTimeInterval(Double(ttlMilliseconds) / 1000))
            return node
        }
    }

    func releaseCoordinator(node: UInt32) throws {
        try check()
        state.withLock { s in if s.coordinator?.node == node { s.coordinator = nil } }
    }

    func saveLiveCalls(node: UInt32, summary: [UInt8]) throws -> Bool {
        try check()
        return state.withLock { s in
            guard let c = s.coordinator, c.node == node, holds(c, at: Date()) else { return false }
            s.liveCalls = summary
            return true
        }
    }

    func liveCalls() throws -> [UInt8]? {
        try check()
        return state.withLock { $0.liveCalls }
    }

    /// The coordinator lease expires now (its holder died).
    func expireCoordinator() { state.withLock { $0.coordinator = nil } }

    /// Forgets everything (a Redis restart without persistence).
    func wipe() { state.withLock { $0 = State(next: $0.next) } }
}

/// Records what a directory reports.
final class DirectoryLog: ClusterDirectoryDelegate, Sendable {
    let devices = Mutex<[UInt64: (Device, String)]>([:])
    let recoveries = Atomic<Int>(0)
    let silences = Atomic<Int>(0)

    func remoteDeviceAttached(_ device: Device, status: String) {
        devices.withLock { $0[device.connection.rawValue] = (device, status) }
    }
    func remoteDeviceDetached(_ device: Device) {
        _ = devices.withLock { $0.removeValue(forKey: device.connection.rawValue) }
    }
    func remoteDeviceStatus(_ device: Device, status: String) {
        devices.withLock { $0[device.connection.rawValue]?.1 = status }
    }
    func busRecovered() { recoveries.add(1, ordering: .relaxed) }
    func silenceOutlived() { silences.add(1, ordering: .relaxed) }
    func remoteChangesEnd() {}
    func remoteApplied(_ node: UInt32, seq: UInt64) {}

    var count: Int { devices.withLock { $0.count } }
    func status(_ connection: ConnectionID) -> String? { devices.withLock { $0[connection.rawValue]?.1 } }
}

/// Waits (bounded) on a condition.
func eventually(_ timeout: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
}
