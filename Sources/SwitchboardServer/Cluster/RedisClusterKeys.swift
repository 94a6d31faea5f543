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

/// Where the cluster lives in Redis. Keys:
/// - `sb:node-seq`: the counter node numbers are allocated from;
/// - `sb:nodes`: the set of member nodes; `sb:node:<n>`: a node's heartbeat (expires after the TTL);
/// - `sb:dir:<n>`: a node's directory, a hash of `seq` and `c:<connection>` = `<user>:<session>:<status>`.
/// Channels: `sb:bus:node:<n>` (messages for one node) and `sb:bus:all` (for every node).
enum RedisClusterKeys {
    static let nodeSeq = "sb:node-seq"
    static let nodes = "sb:nodes"
    static func heartbeat(_ node: UInt32) -> String { "sb:node:\(node)" }
    static func directory(_ node: UInt32) -> String { "sb:dir:\(node)" }
    static func channel(_ node: UInt32) -> String { "sb:bus:node:\(node)" }
    static let broadcast = "sb:bus:all"
    /// The call coordinator's lease (its value: the holder's node number) and its summary of the calls in progress.
    static let coordinator = "sb:calls:coordinator"
    static let liveCalls = "sb:calls:live"
}
