//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// `serve` in a cluster: several nodes share one PostgreSQL and one Redis (`docs/cluster.md`).
struct ClusterOptions: ParsableArguments {
    @Option(
        help: """
            Redis URL (redis://[user:password@]host:port[/db], rediss:// for TLS): the node joins the cluster of \
            the servers sharing this Redis and PostgreSQL. Without it the server is a single node. \
            [env: SWITCHBOARD_REDIS_URL]
            """)
    var redisURL: String = envValue("SWITCHBOARD_REDIS_URL", as: String.self) ?? ""

    @Option(
        help:
            """
            CA certificates (PEM) to verify a rediss:// server with (default: the system's). [env: \
            SWITCHBOARD_REDIS_CA_FILE]
            """
    )
    var redisCAFile: String = envValue("SWITCHBOARD_REDIS_CA_FILE", as: String.self) ?? ""

    @Option(help: "Seconds between a node's heartbeats in Redis. [env: SWITCHBOARD_NODE_HEARTBEAT_INTERVAL]")
    var nodeHeartbeatInterval: Double = envValue("SWITCHBOARD_NODE_HEARTBEAT_INTERVAL", as: Double.self) ?? 1

    @Option(
        help: """
            Seconds a heartbeat lasts: a node silent this long is dead, and its devices go offline (after the \
            presence grace). [env: SWITCHBOARD_NODE_HEARTBEAT_TTL]
            """)
    var nodeHeartbeatTTL: Double = envValue("SWITCHBOARD_NODE_HEARTBEAT_TTL", as: Double.self) ?? 5

    @Option(help: "Seconds a Redis command may take before the connection is reset. [env: SWITCHBOARD_REDIS_TIMEOUT]")
    var redisTimeout: Double = envValue("SWITCHBOARD_REDIS_TIMEOUT", as: Double.self) ?? 2

    @Option(
        help: """
            Seconds the call coordinator's lease lasts (renewed every third of it): a dead coordinator's calls end \
            with server_failure after this. [env: SWITCHBOARD_CALL_LEASE_TTL]
            """)
    var callLeaseTTL: Double = envValue("SWITCHBOARD_CALL_LEASE_TTL", as: Double.self) ?? 6

    @Option(
        help:
            """
            Seconds a node waits for the call coordinator's answer before answering unavailable. [env: \
            SWITCHBOARD_CALL_FORWARD_TIMEOUT]
            """
    )
    var callForwardTimeout: Double = envValue("SWITCHBOARD_CALL_FORWARD_TIMEOUT", as: Double.self) ?? 5

    @Option(
        help: """
            Seconds a node holds an authenticate reply for every other live node to confirm it can address the new \
            device (then it answers anyway); 0 waits only for Redis. [env: SWITCHBOARD_DIRECTORY_APPLY_TIMEOUT]
            """)
    var directoryApplyTimeout: Double = envValue("SWITCHBOARD_DIRECTORY_APPLY_TIMEOUT", as: Double.self) ?? 0.5

    func validate() throws {
        guard directoryApplyTimeout >= 0 else {
            throw ValidationError("--directory-apply-timeout must not be negative")
        }
        guard callLeaseTTL >= 0.3, callForwardTimeout > 0 else {
            throw ValidationError("--call-lease-ttl must be at least 0.3 and --call-forward-timeout above 0")
        }
        guard nodeHeartbeatInterval > 0, nodeHeartbeatTTL >= 2 * nodeHeartbeatInterval else {
            throw ValidationError("--node-heartbeat-ttl must be at least twice --node-heartbeat-interval (above 0)")
        }
        guard redisTimeout > 0 else { throw ValidationError("--redis-timeout must be above 0") }
        guard redisURL.isEmpty || redisURL.hasPrefix("redis://") || redisURL.hasPrefix("rediss://") else {
            throw ValidationError("--redis-url must start with redis:// or rediss://")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        guard !redisURL.isEmpty else {
            c.cluster = nil
            return
        }
        c.cluster = ClusterConfiguration(
            redisURL: redisURL, redisCAFile: redisCAFile.isEmpty ? nil : redisCAFile,
            heartbeatInterval: nodeHeartbeatInterval,
            heartbeatTTL: nodeHeartbeatTTL, redisTimeout: redisTimeout)
        c.cluster?.callLeaseTTL = callLeaseTTL
        c.cluster?.callForwardTimeout = callForwardTimeout
        c.cluster?.directoryApplyTimeout = directoryApplyTimeout
    }
}
