//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Synchronization

/// Which devices are on which node, replicated to every node, and which nodes are alive.
///
/// Each node numbers the changes of its own directory (attach, detach, status) and records each in Redis (a
/// hash per node) before broadcasting it; every node applies the others' changes in seq order. A gap (a lost
/// bus message), a node first seen, or the bus coming back makes a node reload that node's snapshot, and
/// changes that arrive meanwhile are buffered and applied after it. Heartbeats with expiry say which nodes
/// are alive; a node whose heartbeat expired is dead: its devices are detached everywhere (so its users go
/// offline after the presence grace) and its directory is forgotten.
///
/// Every mutable field is protected by `queue` (asserted); Redis calls block on it (it is never a loop queue).
final class ClusterDirectory: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is only touched on `queue` (asserted).
    let queue = DispatchQueue(label: "switchboard.cluster.directory")
    let node: UInt32
    let store: any ClusterStore
    let metrics: ClusterMetrics
    let logger: Logger
    /// Heartbeat period and the expiry of a heartbeat (a node silent this long is dead).
    let heartbeatInterval: Double
    let heartbeatTTL: Double
    // protected by queue
    weak var delegate: (any ClusterDirectoryDelegate)?

    private struct RemoteNode {
        var seq: UInt64 = 0
        var devices: [UInt64: DirectoryEntry] = [:]
        /// Changes received while a snapshot is due or loading (applied after it).
        var buffered: [(UInt64, ClusterWire.DirectoryChange)] = []
        var needsSnapshot = true
    }

    // protected by queue
    private var localSeq: UInt64 = 0
    // protected by queue: this node's changes not yet recorded and sent, and what to call once they are. Sent
    // together as soon as the queue gets to them (no timer): changes that arrive while a Redis round trip is
    // under way join the next batch, so a storm of connections costs a few hundred bus messages, not one per
    // device, and a lone change is not delayed.
    private var pending: [ClusterWire.DirectoryChange] = []
    // protected by queue
    private var pendingCallbacks: [@Sendable () -> Void] = []
    // protected by queue
    private var flushScheduled = false
    /// The largest batch.
    let maxBatch = 1000
    // protected by queue
    private var localDevices: [UInt64: DirectoryEntry] = [:]
    // protected by queue
    private var remote: [UInt32: RemoteNode] = [:]
    // protected by queue: whether Redis failed (or the bus dropped) since the last heartbeat: the next good
    // heartbeat is a recovery
    private var storeDown = false
    // protected by queue: when the last recovery happened (`DispatchTime` nanoseconds); no node is declared
    // dead within a heartbeat TTL of it (the others are writing their heartbeats again too)
    private var recoveredAt: UInt64 = 0
    // protected by queue: when the last heartbeat was written (`DispatchTime` nanoseconds; 0 before the first)
    private var lastBeatAt: UInt64 = 0
    // protected by queue
    private var timer: (any DispatchSourceTimer)?

    /// Callbacks of this node's changes (held `authenticate` replies) waiting for the other nodes to have applied
    /// the changes up to `seq`: released when every node in `nodes` said so (`applied(by:seq:)`), when a node
    /// goes, or after `applyTimeout`.
    private struct Held {
        let seq: UInt64
        var nodes: Set<UInt32>
        let callbacks: [@Sendable () -> Void]
    }
    // protected by queue
    private var held: [Held] = []
    /// Seconds a change's callbacks wait for the other nodes to have applied it (then they run anyway).
    let applyTimeout: Double
    /// Whether the bus (this node's subscription) is up: a recovery waits for it, so that the snapshots it loads
    /// are followed by every change published after them. Set before `start`; any thread.
    var isBusUp: @Sendable () -> Bool = { true }

    init(
        node: UInt32, store: any ClusterStore, heartbeatInterval: Double, heartbeatTTL: Double, metrics: ClusterMetrics,
        logger: Logger, applyTimeout: Double = 0.5
    ) {
        self.node = node
        self.store = store
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatTTL = heartbeatTTL
        self.metrics = metrics
        self.logger = logger
        self.applyTimeout = applyTimeout
    }

    private func assertOnQueue() { dispatchPrecondition(condition: .onQueue(queue)) }

    /// Starts the heartbeats (the first one at once).
    func start() {
        queue.async { [self] in
            let t = DispatchSource.makeTimerSource(queue: queue)
            t.schedule(deadline: .now(), repeating: heartbeatInterval, leeway: .milliseconds(20))
            t.setEventHandler { [weak self] in self?.beat() }
            timer = t
            t.resume()
        }
    }

    /// Stops the heartbeats (the node's key expires; others forget it after the TTL).
    func stop() {
        queue.sync { [self] in
            timer?.cancel()
            timer = nil
        }
    }

    // MARK: this node's devices

    /// A device of this node authenticated. `published` runs (on the directory's queue) once the change is
    /// recorded in Redis and every other live node has applied it (or `applyTimeout` passed, or Redis failed:
    /// nothing is held back for long).
    func localAttached(_ device: Device, published: (@Sendable () -> Void)? = nil) {
        queue.async { [self] in
            localDevices[device.connection.rawValue] = DirectoryEntry(
                connection: device.connection.rawValue, userId: device.userId, sessionId: device.sessionId,
                status: "online")
            if let published { pendingCallbacks.append(published) }
            publish(
                .attached(connection: device.connection.rawValue, userId: device.userId, sessionId: device.sessionId))
        }
    }

    /// A device of this node closed.
    func localDetached(_ device: Device) {
        queue.async { [self] in
            guard localDevices.removeValue(forKey: device.connection.rawValue) != nil else { return }
            publish(.detached(connection: device.connection.rawValue, userId: device.userId))
        }
    }

    /// A device of this node set its presence status.
    func localStatus(_ device: Device, status: String) {
        queue.async { [self] in
            guard localDevices[device.connection.rawValue] != nil else { return }
            localDevices[device.connection.rawValue]!.status = status
            publish(.status(connection: device.connection.rawValue, userId: device.userId, status: status))
        }
    }

    private func publish(_ change: ClusterWire.DirectoryChange) {
        assertOnQueue()
        pending.append(change)
        if pending.count >= maxBatch {
            flush()
        } else if !flushScheduled {
            // After the blocks already queued (other changes of a storm join this batch).
            flushScheduled = true
            queue.async { [self] in
                flushScheduled = false
                flush()
            }
        }
    }

    /// Numbers, records and sends the pending changes.
    private func flush() {
        assertOnQueue()
        guard !pending.isEmpty else { return }
        let changes = pending
        let callbacks = pendingCallbacks
        pending = []
        pendingCallbacks = []
        let first = localSeq + 1
        localSeq += UInt64(changes.count)
        let withEntries = changes.map { change -> (ClusterWire.DirectoryChange, DirectoryEntry?) in
            switch change {
            case .attached(let c, _, _), .status(let c, _, _): (change, localDevices[c])
            case .detached, .sync: (change, nil)
            }
        }
        do {
            try store.record(
                node: node, lastSeq: localSeq, changes: withEntries,
                message: ClusterWire.directory(node: node, seq: first, changes).encoded())
        } catch {
            // The changes are in `localDevices`; the whole directory is written again when Redis is back.
            storeFailed(error)
            for callback in callbacks { callback() }
            return
        }
        hold(callbacks, until: localSeq)
    }

    /// Runs `callbacks` once every other live node has applied this node's changes up to `seq` (or after
    /// `applyTimeout`).
    private func hold(_ callbacks: [@Sendable () -> Void], until seq: UInt64) {
        assertOnQueue()
        guard !callbacks.isEmpty else { return }
        let nodes = Set(remote.keys)
        guard !nodes.isEmpty, applyTimeout > 0, !storeDown else {
            for callback in callbacks { callback() }
            return
        }
        held.append(Held(seq: seq, nodes: nodes, callbacks: callbacks))
        queue.asyncAfter(deadline: .now() + applyTimeout) { [weak self] in self?.releaseHeld(upTo: seq, timedOut: true)
        }
    }

    /// `other` has applied this node's changes up to `seq` (a `ClusterWire.directoryApplied` from the bus).
    func applied(by other: UInt32, seq: UInt64) {
        queue.async { [self] in
            for i in held.indices where held[i].seq <= seq { held[i].nodes.remove(other) }
            releaseSettled()
        }
    }

    /// Runs the callbacks no node is awaited for any more.
    private func releaseSettled() {
        release { $0.nodes.isEmpty }
    }

    /// Runs the callbacks of changes up to `seq` (all with `.max`), whoever has applied them.
    private func releaseHeld(upTo seq: UInt64, timedOut: Bool) {
        let released = release { $0.seq <= seq }
        if timedOut && released {
            metrics.directoryApplyTimeouts.increment()
            logger.debug(
                "cluster: a directory change was not confirmed by every node in time", metadata: ["sb.seq": "\(seq)"])
        }
    }

    /// Removes the held entries `done` selects and runs their callbacks; returns whether there were any.
    @discardableResult
    private func release(_ done: (Held) -> Bool) -> Bool {
        assertOnQueue()
        let released = held.filter(done)
        guard !released.isEmpty else { return false }
        held.removeAll(where: done)
        for entry in released { for callback in entry.callbacks { callback() } }
        return true
    }

    // MARK: other nodes' changes

    /// A directory message from the bus (any node's, this one's included): `changes` numbered from `seq`.
    func received(node from: UInt32, seq first: UInt64, changes: [ClusterWire.DirectoryChange]) {
        queue.async { [self] in
            guard from != node else { return }
            if remote[from] == nil {
                // A node first seen: its snapshot now, not at the next heartbeat (a held reply of it waits).
                queue.async { [self] in resync(from) }
            }
            var state = remote[from] ?? RemoteNode()
            defer { remote[from] = state }
            for (i, change) in changes.enumerated() {
                let seq = first + UInt64(i)
                if state.needsSnapshot {
                    state.buffered.append((seq, change))
                    continue
                }
                if seq <= state.seq { continue }
                guard seq == state.seq + 1 else {
                    // A lost message: reload the node's directory, then apply what arrives after it.
                    state.needsSnapshot = true
                    state.buffered = Array(zip((0..<UInt64(changes.count - i)).map { seq + $0 }, changes[i...]))
                    queue.async { [self] in resync(from) }
                    return
                }
                apply(change, of: from, to: &state)
                state.seq = seq
            }
            delegate?.remoteChangesEnd()
            if !state.needsSnapshot { delegate?.remoteApplied(from, seq: state.seq) }
        }
    }

    private func apply(_ change: ClusterWire.DirectoryChange, of from: UInt32, to state: inout RemoteNode) {
        assertOnQueue()
        switch change {
        case .attached(let connection, let userId, let sessionId):
            let entry = DirectoryEntry(connection: connection, userId: userId, sessionId: sessionId, status: "online")
            if state.devices.updateValue(entry, forKey: connection) == nil {
                delegate?.remoteDeviceAttached(Self.device(entry), status: entry.status)
            }
        case .detached(let connection, _):
            if let entry = state.devices.removeValue(forKey: connection) {
                delegate?.remoteDeviceDetached(Self.device(entry))
            }
        case .status(let connection, _, let status):
            guard var entry = state.devices[connection] else { return }
            entry.status = status
            state.devices[connection] = entry
            delegate?.remoteDeviceStatus(Self.device(entry), status: status)
        case .sync: break
        }
    }

    private static func device(_ entry: DirectoryEntry) -> Device {
        Device(sessionId: entry.sessionId, userId: entry.userId, connection: ConnectionID(rawValue: entry.connection))
    }

    /// Loads `from`'s snapshot and makes this node's copy equal to it, then applies the buffered changes.
    private func resync(_ from: UInt32) {
        assertOnQueue()
        guard var state = remote[from], state.needsSnapshot else { return }
        let snapshot: (seq: UInt64, devices: [DirectoryEntry])
        do {
            snapshot = try store.snapshot(node: from)
        } catch {
            storeFailed(error)
            return  // retried at the next heartbeat
        }
        metrics.directoryResyncs.increment()
        let fresh = Dictionary(snapshot.devices.map { ($0.connection, $0) }, uniquingKeysWith: { _, b in b })
        for (connection, entry) in state.devices where fresh[connection] == nil {
            delegate?.remoteDeviceDetached(Self.device(entry))
        }
        for (connection, entry) in fresh {
            if let old = state.devices[connection] {
                if old.status != entry.status { delegate?.remoteDeviceStatus(Self.device(entry), status: entry.status) }
            } else {
                delegate?.remoteDeviceAttached(Self.device(entry), status: entry.status)
            }
        }
        state.devices = fresh
        state.seq = snapshot.seq
        state.needsSnapshot = false
        let buffered = state.buffered.sorted { $0.0 < $1.0 }
        state.buffered = []
        for (seq, change) in buffered where seq > state.seq {
            guard seq == state.seq + 1 else {
                state.needsSnapshot = true
                state.buffered = buffered.filter { $0.0 >= seq }
                break
            }
            apply(change, of: from, to: &state)
            state.seq = seq
        }
        remote[from] = state
        delegate?.remoteChangesEnd()
        if !state.needsSnapshot { delegate?.remoteApplied(from, seq: state.seq) }
        updateGauges()
    }

    // MARK: liveness

    /// The bus (the Redis subscription, or the connection that publishes) dropped: messages may be lost until the
    /// next good heartbeat, which reloads every directory and writes this node's again.
    func busDropped() {
        storeUp.store(false, ordering: .relaxed)
        queue.async { [self] in
            if !storeDown { logger.error("cluster: the bus dropped") }
            storeDown = true
            storeUp.store(false, ordering: .relaxed)
            releaseHeld(upTo: .max, timedOut: false)
        }
    }

    /// Writes this node's whole directory to Redis again (after Redis lost it, or the others forgot this node) and
    /// announces it with a `sync` change, so a node whose copy is older sees a gap and reloads it.
    private func rewriteDirectory() throws {
        assertOnQueue()
        flush()
        localSeq += 1
        try store.replace(node: node, seq: localSeq, devices: Array(localDevices.values))
        publish(.sync)
        flush()
    }

    private func beat() {
        assertOnQueue()
        do {
            let now = DispatchTime.now().uptimeNanoseconds
            // Silent longer than the TTL since the last heartbeat (the process was stopped, or stalled): the others
            // may have expired this node, detached its devices and stopped delivering to them.
            let running = lastBeatAt != 0  // the first heartbeat adds this node: it was not forgotten
            let outlived = running && now &- lastBeatAt >= UInt64(heartbeatTTL * 1e9)
            let forgotten = try store.heartbeat(node: node, ttlMilliseconds: Int(heartbeatTTL * 1000))
            lastBeatAt = now
            let (live, dead) = try store.nodes()
            if forgotten && !storeDown && localSeq > 0 {
                // The others forgot this node (a pause longer than the TTL): write the directory again.
                try rewriteDirectory()
            }
            if running && (forgotten || outlived) && !storeDown {
                // Its clients reconnect and resume (a recovery of the store does the same, below).
                metrics.silencesOutlived.increment()
                logger.warning(
                    "cluster: this node was silent longer than its heartbeat TTL, or forgotten by the others",
                    metadata: ["sb.forgotten": "\(forgotten)"])
                delegate?.silenceOutlived()
            }
            if storeDown {
                // Not before this node hears the bus again: a snapshot loaded while it does not would miss the
                // changes published between the two.
                guard isBusUp() else { return }
                storeDown = false
                recoveredAt = DispatchTime.now().uptimeNanoseconds
                logger.notice("cluster: Redis is back")
                // Redis may have lost everything (a restart): write this node's directory again, and reload
                // every other node's.
                try rewriteDirectory()
                for key in remote.keys { remote[key]!.needsSnapshot = true }
                delegate?.busRecovered()
            }
            for other in live where other != node && remote[other] == nil {
                remote[other] = RemoteNode()
            }
            let settling =
                DispatchTime.now().uptimeNanoseconds &- recoveredAt < UInt64(heartbeatTTL * 1e9) && recoveredAt != 0
            for other in Set(remote.keys).subtracting(live) where !settling {
                // Expired (or forgotten by another node): its devices are gone.
                let state = remote.removeValue(forKey: other)!
                for i in held.indices { held[i].nodes.remove(other) }
                releaseSettled()
                for entry in state.devices.values { delegate?.remoteDeviceDetached(Self.device(entry)) }
                delegate?.remoteChangesEnd()
                metrics.nodesExpired.increment()
                logger.warning(
                    "cluster: node expired", metadata: ["sb.node": "\(other)", "sb.devices": "\(state.devices.count)"])
            }
            if !settling { for other in dead where other != node { try store.forget(node: other) } }
            for (other, state) in remote where state.needsSnapshot { resync(other) }
            updateGauges()
            storeUp.store(!storeDown, ordering: .relaxed)
        } catch {
            storeFailed(error)
        }
    }

    private let liveCount = Atomic<Int>(1)
    /// Whether Redis answered this node's last heartbeat and, after an outage, the recovery is complete (the
    /// directory written again and its `sync` change published): `/readyz` is not ready without it.
    private let storeUp = Atomic<Bool>(true)

    /// Whether Redis is up for this node as of its last heartbeat, with any recovery done (`/readyz`); any thread.
    var isStoreUp: Bool { storeUp.load(ordering: .relaxed) }

    /// The live nodes (this one included) as of the last heartbeat; any thread.
    var liveNodeCount: Int { liveCount.load(ordering: .relaxed) }

    private func updateGauges() {
        liveCount.store(remote.count + 1, ordering: .relaxed)
        metrics.nodesLive.record(remote.count + 1)
        metrics.remoteDevices.record(remote.values.reduce(0) { $0 + $1.devices.count })
    }

    private func storeFailed(_ error: any Error) {
        if !storeDown { logger.error("cluster: Redis unavailable", metadata: [LogKey.error: "\(error)"]) }
        storeDown = true
        storeUp.store(false, ordering: .relaxed)
        releaseHeld(upTo: .max, timedOut: false)
    }
}
