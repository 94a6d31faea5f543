//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardTransport

/// A node of a cluster: the Redis shared by the nodes, and the heartbeats (`docs/cluster.md`).
public struct ClusterConfiguration: Sendable, Equatable {
    /// `redis://[user:password@]host:port[/db]` or `rediss://` (TLS). Holds the password: never logged.
    public var redisURL: String
    /// CA certificates for a `rediss://` server (nil: the system's).
    public var redisCAFile: String?
    /// Seconds between heartbeats.
    public var heartbeatInterval: Double
    /// Seconds a heartbeat lasts (a node silent this long is dead).
    public var heartbeatTTL: Double
    /// Seconds a Redis command may take.
    public var redisTimeout: Double
    /// Seconds the call coordinator's lease lasts without renewal (renewed every third of it): a dead
    /// coordinator is replaced, and its calls ended with `server_failure`, after this.
    public var callLeaseTTL: Double = 6
    /// Seconds a node waits for the call coordinator's answer to a forwarded call request (then `unavailable`).
    public var callForwardTimeout: Double = 5
    /// Seconds an `authenticate` reply waits for every other live node to confirm it can address the new device
    /// (then it is sent anyway).
    public var directoryApplyTimeout: Double = 0.5

    public init(
        redisURL: String, redisCAFile: String? = nil, heartbeatInterval: Double = 1, heartbeatTTL: Double = 5,
        redisTimeout: Double = 2
    ) {
        self.redisURL = redisURL
        self.redisCAFile = redisCAFile
        self.heartbeatInterval = heartbeatInterval
        self.heartbeatTTL = heartbeatTTL
        self.redisTimeout = redisTimeout
    }
}
