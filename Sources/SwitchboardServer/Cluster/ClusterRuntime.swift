//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardRedis
import Synchronization

/// A node's connections to Redis and its `ClusterNode`: joins at start (a node number, the bus subscription),
/// leaves at shutdown.
final class ClusterRuntime: Sendable {
    let node: ClusterNode
    let client: RedisClient
    let subscriber: RedisSubscriber

    private init(node: ClusterNode, client: RedisClient, subscriber: RedisSubscriber) {
        self.node = node
        self.client = client
        self.subscriber = subscriber
    }

    struct JoinFailed: Error, CustomStringConvertible {
        let description: String
    }

    /// Connects to Redis (waiting up to the connect timeout and a few reconnects), takes a node number and
    /// subscribes to the node's channels. Blocks: called at start-up, before any loop runs.
    static func join(_ configuration: ClusterConfiguration, metrics: ServerMetrics, logger: Logger) throws
        -> ClusterRuntime
    {
        var redis = try RedisConfiguration(url: configuration.redisURL)
        if let ca = configuration.redisCAFile { redis.caFile = ca }
        redis.commandTimeout = .milliseconds(Int64(configuration.redisTimeout * 1000))
        redis.connectTimeout = .milliseconds(Int64(configuration.redisTimeout * 1000))
        // The node does not exist before the client allocated its number: its state changes reach it once set.
        let publisher = NodeReference()
        let client = try RedisClient(
            configuration: redis, label: "cluster", logger: logger,
            stateHandler: { state in
                guard let node = publisher.node.withLock({ $0 }) else { return }
                node.publishConnectionChanged(up: state == .connected)
            })
        let deadline = DispatchTime.now() + .milliseconds(Int(max(5, configuration.redisTimeout * 3) * 1000))
        while client.state != .connected {
            guard DispatchTime.now() < deadline else {
                client.close()
                throw JoinFailed(description: "Redis unreachable at \(redis): \(client.state)")
            }
            usleep(20_000)
        }
        let store = RedisClusterStore(client: client)
        let number = try store.allocateNode()
        let clusterMetrics = ClusterMetrics(factory: metrics.factory)
        let node = ClusterNode(
            node: number, local: LocalOutbox(), bus: RedisClusterBus(client: client, metrics: clusterMetrics),
            store: store,
            registry: SessionRegistry(), heartbeatInterval: configuration.heartbeatInterval,
            heartbeatTTL: configuration.heartbeatTTL,
            applyTimeout: configuration.directoryApplyTimeout, metrics: clusterMetrics, logger: logger)
        publisher.node.withLock { $0 = node }
        if client.state != .connected { node.publishConnectionChanged(up: false) }
        let subscriber = try RedisSubscriber(
            configuration: redis, label: "cluster-bus", logger: logger,
            handlerQueue: DispatchQueue(label: "switchboard.cluster.bus"),
            handler: { message in node.received(message.payload) },
            stateHandler: { state in node.busStateChanged(up: state == .connected) })
        subscriber.subscribe([Array(RedisClusterKeys.channel(number).utf8), Array(RedisClusterKeys.broadcast.utf8)])
        logger.notice("joined the cluster", metadata: ["sb.node": "\(number)"])
        return ClusterRuntime(node: node, client: client, subscriber: subscriber)
    }

    func start() { node.start() }

    func stop() {
        node.stop()
        subscriber.close()
        client.close()
    }
}

/// The node a Redis client's state changes go to, once it exists.
private final class NodeReference: Sendable {
    let node = Mutex<ClusterNode?>(nil)
}
