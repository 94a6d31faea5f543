//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Synchronization

/// One node of a cluster: its number, the outbox that reaches the other nodes, and the directory of devices.
/// Routes what the bus brings (`received`) and applies other nodes' devices to this node's registry and
/// presence. Built by the server when it has a Redis URL (`docs/cluster.md`).
public final class ClusterNode: ClusterDirectoryDelegate, @unchecked Sendable {
    // @unchecked Sendable: `presence` and `calls` are set once, before `start`, and only read afterwards.
    let node: UInt32
    let outbox: ClusterOutbox
    /// This node's connections.
    let local: LocalOutbox
    let directory: ClusterDirectory
    let registry: SessionRegistry
    let metrics: ClusterMetrics
    let logger: Logger
    /// Set by the services once the engines exist (before `start`).
    var presence: PresenceHub?
    /// Applies another node's notice to this node's caches (set by the services before `start`).
    var noticeHandler: (@Sendable (ClusterWire.Notice) -> Void)?
    let bus: any ClusterBus
    /// Set by the services once the engines exist (before `start`): forwarded call requests, and other nodes'
    /// devices for the call coordinator.
    var calls: CallService?
    /// The call coordinator's lease and forwarding (set by the services before `start`).
    var coordination: CallCoordination?
    /// Live pages: routes other nodes' social batches to this node's connections (set by the services before `start`).
    var social: SocialLive?

    init(
        node: UInt32, local: LocalOutbox, bus: any ClusterBus, store: any ClusterStore, registry: SessionRegistry,
        heartbeatInterval: Double, heartbeatTTL: Double, applyTimeout: Double = 0.5, metrics: ClusterMetrics,
        logger: Logger
    ) {
        self.node = node
        self.registry = registry
        self.metrics = metrics
        self.logger = logger
        self.local = local
        self.bus = bus
        outbox = ClusterOutbox(node: node, local: local, bus: bus, metrics: metrics, logger: logger)
        directory = ClusterDirectory(
            node: node, store: store, heartbeatInterval: heartbeatInterval, heartbeatTTL: heartbeatTTL,
            metrics: metrics,
            logger: logger, applyTimeout: applyTimeout)
        directory.delegate = self
        directory.isBusUp = { [weak self] in self?.isBusUp ?? false }
    }

    func start() {
        directory.start()
        coordination?.start()
    }

    func stop() {
        coordination?.stop()
        directory.stop()
    }

    /// A message from the bus (this node's channel or the broadcast channel); on the subscriber's queue.
    func received(_ bytes: [UInt8]) {
        metrics.busMessagesReceived.increment()
        guard let message = ClusterWire.decode(bytes) else {
            metrics.busMessagesMalformed.increment()
            return
        }
        switch message {
        case .deliver(let groups): outbox.receive(groups)
        case .directory(let from, let seq, let changes): directory.received(node: from, seq: seq, changes: changes)
        case .notice(let from, let notice): if from != node { noticeHandler?(notice) }
        case .callRequest(let connection, let userId, let sessionId, let requestId, let op, let command):
            calls?.received(
                connection: connection, userId: userId, sessionId: sessionId, requestId: requestId, op: op,
                command: command)
        case .directoryApplied(let from, let seq): directory.applied(by: from, seq: seq)
        case .social(let from, let payload): if from != node { social?.received(payload) }
        }
    }

    /// Tells every other node of a change to data they keep in memory.
    func announce(_ notice: ClusterWire.Notice) {
        let bytes = ClusterWire.notice(node: node, notice).encoded()
        metrics.busMessagesSent.increment()
        bus.broadcast(bytes)
    }

    private let busUp = Atomic<Bool>(false)
    private let publishUp = Atomic<Bool>(true)
    private let readinessLosses = Atomic<Int>(0)

    /// How many times a Redis connection of the node dropped (each made it not ready until its recovery): a test
    /// waits for this to move rather than for the not-ready window itself, which a quick recovery can make short.
    var readinessLossCount: Int { readinessLosses.load(ordering: .relaxed) }

    /// Whether the bus (the Redis subscription) is connected (a recovery waits for it).
    var isBusUp: Bool { busUp.load(ordering: .relaxed) }

    /// Whether the node can take clients (`/readyz`): both of its Redis connections are up (the subscription and
    /// the connection that publishes and keeps the heartbeat), and, after either dropped, the recovery is done:
    /// a heartbeat succeeded and the node's directory was written and published again (a PUBLISH went through).
    var isReady: Bool { isBusUp && publishUp.load(ordering: .relaxed) && directory.isStoreUp }

    /// The bus connection dropped or came back.
    func busStateChanged(up: Bool) {
        busUp.store(up, ordering: .relaxed)
        metrics.busUp.record(up ? 1 : 0)
        if !up {
            readinessLosses.add(1, ordering: .relaxed)
            directory.busDropped()
        }
    }

    /// The connection that publishes (and runs the heartbeat and the directory's writes) dropped or came back. A
    /// drop loses what was being published, as a drop of the subscription does: handled as an outage of the bus.
    func publishConnectionChanged(up: Bool) {
        publishUp.store(up, ordering: .relaxed)
        if !up {
            readinessLosses.add(1, ordering: .relaxed)
            directory.busDropped()
        }
    }

    // MARK: ClusterDirectoryDelegate (on the directory's queue)

    // The registry changes at once; presence and calls get a block's changes together (`remoteChangesEnd`): one
    // queued block per bus message rather than one per device, which a storm of connections would pile up.
    // protected by the directory's queue
    private var presenceChanges: [PresenceHub.RemoteDeviceChange] = []
    // protected by the directory's queue
    private var callChanges: [(device: Device, opened: Bool)] = []

    func remoteDeviceAttached(_ device: Device, status: String) {
        registry.add(device)
        presenceChanges.append(.connected(device))
        callChanges.append((device, true))
        if let s = PresenceStatus(rawValue: status), s != .online { presenceChanges.append(.status(device, s)) }
    }

    func remoteDeviceDetached(_ device: Device) {
        registry.remove(device.connection, userId: device.userId)
        presenceChanges.append(.disconnected(device))
        callChanges.append((device, false))
    }

    func remoteDeviceStatus(_ device: Device, status: String) {
        if let s = PresenceStatus(rawValue: status), s != .offline { presenceChanges.append(.status(device, s)) }
    }

    func remoteChangesEnd() {
        if !presenceChanges.isEmpty {
            presence?.remoteDevicesChanged(presenceChanges)
            presenceChanges = []
        }
        if !callChanges.isEmpty {
            calls?.connectionsChanged(callChanges)
            callChanges = []
        }
    }

    func remoteApplied(_ other: UInt32, seq: UInt64) {
        let bytes = ClusterWire.directoryApplied(node: node, seq: seq).encoded()
        metrics.busMessagesSent.increment()
        bus.send(bytes, to: other)
    }

    func silenceOutlived() {
        // The others may have expired this node while it was paused and sent nothing to its devices meanwhile: its
        // clients reconnect (to any node) and resume from their last seqs.
        let devices = registry.devices(onNode: node)
        logger.warning(
            "cluster: asking this node's clients to reconnect after a pause",
            metadata: ["sb.devices": "\(devices.count)"])
        local.post(.reconnect, to: devices.map(\.connection))
    }

    func busRecovered() {
        // Deliveries from other nodes may have been lost while the bus was down: this node's clients reconnect
        // and resume from their last seqs (nothing acknowledged is lost: it is in PostgreSQL).
        let devices = registry.devices(onNode: node)
        logger.warning(
            "cluster: the bus is back; asking this node's clients to reconnect",
            metadata: ["sb.devices": "\(devices.count)"])
        local.post(.reconnect, to: devices.map(\.connection))
        // Publishes that failed while it was down owe their recipients on other nodes a reconnect.
        outbox.flushOwed()
    }
}
