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

/// How nodes reach each other: a message to one node, or to every node. Fire-and-forget; thread-safe. The
/// server's is Redis pub/sub (`RedisClusterBus`); tests use one in memory.
protocol ClusterBus: Sendable {
    /// Sends `bytes` (an encoded `ClusterWire`) to `node`.
    func send(_ bytes: [UInt8], to node: UInt32)
    /// Sends `bytes` to every node, this one included.
    func broadcast(_ bytes: [UInt8])
}
