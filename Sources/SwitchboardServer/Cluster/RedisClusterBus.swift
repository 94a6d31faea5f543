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

/// The bus over Redis pub/sub: `PUBLISH` on the command connection (fire-and-forget; a failure is counted,
/// and the directory's next heartbeat notices that Redis is down).
final class RedisClusterBus: ClusterBus {
    let client: RedisClient
    let queue = DispatchQueue(label: "switchboard.cluster.publish")
    let metrics: ClusterMetrics

    init(client: RedisClient, metrics: ClusterMetrics) {
        self.client = client
        self.metrics = metrics
    }

    func send(_ bytes: [UInt8], to node: UInt32) { publish(RedisClusterKeys.channel(node), bytes) }

    func broadcast(_ bytes: [UInt8]) { publish(RedisClusterKeys.broadcast, bytes) }

    private func publish(_ channel: String, _ bytes: [UInt8]) {
        client.send(RedisCommand("PUBLISH", channel, bytes), queue: queue) { [metrics] result in
            if case .failure = result { metrics.busPublishFailures.increment() }
        }
    }
}
