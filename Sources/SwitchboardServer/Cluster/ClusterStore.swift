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

/// The shared state of a cluster that the directory keeps in Redis (`RedisClusterStore`); tests use one in
/// memory. Calls block and are made on the directory's queue only (never a loop queue).
protocol ClusterStore: Sendable {
    /// A node number no live node has (1 ..< 2^24).
    func allocateNode() throws -> UInt32
    /// Marks `node` alive for `ttlMilliseconds` (and a member of the cluster); true when it was not a member
    /// (new, or forgotten by the others after a pause longer than the TTL: it must write its directory again).
    func heartbeat(node: UInt32, ttlMilliseconds: Int) throws -> Bool
    /// The members whose heartbeat has not expired, and those whose heartbeat has (dead, not yet forgotten).
    func nodes() throws -> (live: Set<UInt32>, dead: Set<UInt32>)
    /// Removes a dead node and its directory.
    func forget(node: UInt32) throws
    /// Records changes of `node`'s directory (the last numbered `lastSeq`; each with the device as it is now, nil
    /// when it is gone) and publishes `message` to every node, in this order on one connection (so a snapshot
    /// read after the message arrives includes the changes).
    func record(
        node: UInt32, lastSeq: UInt64, changes: [(ClusterWire.DirectoryChange, DirectoryEntry?)], message: [UInt8])
        throws
    /// Replaces `node`'s whole directory (after Redis lost it, e.g. restarted).
    func replace(node: UInt32, seq: UInt64, devices: [DirectoryEntry]) throws
    /// `node`'s directory and the seq of its last change, read atomically.
    func snapshot(node: UInt32) throws -> (seq: UInt64, devices: [DirectoryEntry])

    // The call coordinator (`CallCoordination`, `docs/cluster.md` "Calls across nodes"); called on its queue.

    /// Atomically: when no node holds the coordinator lease, `node` takes it for `ttlMilliseconds`; when `node`
    /// holds it, its expiry is reset to `ttlMilliseconds` from now; returns the holder afterwards. (Redis: one
    /// script: `SET k node NX PX ttl`; if not set and `GET k == node`, `PEXPIRE k ttl`; return `GET k`.)
    func claimCoordinator(node: UInt32, ttlMilliseconds: Int) throws -> UInt32
    /// Atomically: drops the lease if `node` holds it (a graceful stop); otherwise nothing.
    func releaseCoordinator(node: UInt32) throws
    /// Atomically: replaces the summary of the calls in progress with `summary` if `node` holds the lease (a
    /// coordinator that lost it writes nothing); returns whether it was written. (Redis: one script comparing
    /// the lease key, then `SET`.)
    func saveLiveCalls(node: UInt32, summary: [UInt8]) throws -> Bool
    /// The last summary written (nil: none yet).
    func liveCalls() throws -> [UInt8]?
}
