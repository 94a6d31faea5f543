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

    func send(_ bytes: [UInt8], to node: UInt32, accepted: (@Sendable (Bool) -> Void)?) {
        publish(RedisClusterKeys.channel(node), bytes, accepted)
    }

    func broadcast(_ bytes: [UInt8]) { publish(RedisClusterKeys.broadcast, bytes, nil) }

    /// `accepted` runs on `queue` (never on the Redis client's I/O queue).
    private func publish(_ channel: String, _ bytes: [UInt8], _ accepted: (@Sendable (Bool) -> Void)?) {
        client.send(RedisCommand("PUBLISH", channel, bytes), queue: queue) { [metrics] result in
            switch result {
            case .success(.error):  // Redis refused the command
                metrics.busPublishFailures.increment()
                accepted?(false)
            case .success: accepted?(true)
            case .failure:
                metrics.busPublishFailures.increment()
                accepted?(false)
            }
        }
    }
}
