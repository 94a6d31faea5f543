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
import SwitchboardTransport

/// How nodes reach each other: a message to one node, or to every node. Thread-safe. The server's is Redis pub/sub
/// (`RedisClusterBus`); tests use one in memory.
protocol ClusterBus: Sendable {
    /// Sends `bytes` (an encoded `ClusterWire`) to `node`. `accepted`, when given, is called once (on any queue,
    /// never inside this call's caller's locks: it may run before `send` returns) with whether the bus took the
    /// message (Redis answered the PUBLISH); a failure includes a command timeout (`--redis-timeout`), so it is
    /// always called within that time.
    func send(_ bytes: [UInt8], to node: UInt32, accepted: (@Sendable (Bool) -> Void)?)
    /// Sends `bytes` to every node, this one included.
    func broadcast(_ bytes: [UInt8])
}

extension ClusterBus {
    /// Sends `bytes` to `node`, fire-and-forget.
    func send(_ bytes: [UInt8], to node: UInt32) { send(bytes, to: node, accepted: nil) }
}
