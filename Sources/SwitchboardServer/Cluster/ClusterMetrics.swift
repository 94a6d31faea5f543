//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CoreMetrics
import Prometheus

/// The cluster's instruments (`switchboard_cluster_*`); made once, recorded from any queue.
final class ClusterMetrics: Sendable {
    /// Bus messages this node sent and received, and their bytes.
    let busMessagesSent: CoreMetrics.Counter
    let busBytesSent: CoreMetrics.Counter
    let busMessagesReceived: CoreMetrics.Counter
    /// Bus messages that could not be decoded (another version, or damaged).
    let busMessagesMalformed: CoreMetrics.Counter
    /// Times this node reloaded another node's directory (at start, after a gap or after the bus came back).
    let directoryResyncs: CoreMetrics.Counter
    /// Held replies released because some node did not confirm a directory change in time.
    let directoryApplyTimeouts: CoreMetrics.Counter
    /// Nodes declared dead (their heartbeat expired) by this node.
    let nodesExpired: CoreMetrics.Counter
    /// Times this node found it had been silent longer than its heartbeat TTL (a pause) and had its clients reconnect.
    let silencesOutlived: CoreMetrics.Counter
    /// Live nodes as this node sees them (itself included).
    let nodesLive: CoreMetrics.Gauge
    /// Devices on other nodes known to this node.
    let remoteDevices: CoreMetrics.Gauge
    /// 1 while the bus (Redis) is reachable, else 0.
    let busUp: CoreMetrics.Gauge
    /// Bus messages Redis did not take (down, or the client's queue full): their recipients on other nodes
    /// reconnect and resume when the bus is back.
    let busPublishFailures: CoreMetrics.Counter

    init(factory: PrometheusMetricsFactory) {
        busMessagesSent = CoreMetrics.Counter(
            label: "switchboard_cluster_bus_messages_total", dimensions: [("direction", "out")], factory: factory)
        busBytesSent = CoreMetrics.Counter(
            label: "switchboard_cluster_bus_bytes_total", dimensions: [("direction", "out")], factory: factory)
        busMessagesReceived = CoreMetrics.Counter(
            label: "switchboard_cluster_bus_messages_total", dimensions: [("direction", "in")], factory: factory)
        busMessagesMalformed = CoreMetrics.Counter(label: "switchboard_cluster_bus_malformed_total", factory: factory)
        directoryResyncs = CoreMetrics.Counter(label: "switchboard_cluster_directory_resyncs_total", factory: factory)
        directoryApplyTimeouts = CoreMetrics.Counter(
            label: "switchboard_cluster_directory_apply_timeouts_total", factory: factory)
        nodesExpired = CoreMetrics.Counter(label: "switchboard_cluster_nodes_expired_total", factory: factory)
        silencesOutlived = CoreMetrics.Counter(
            label: "switchboard_cluster_silences_outlived_total", factory: factory)
        nodesLive = CoreMetrics.Gauge(label: "switchboard_cluster_nodes_live", factory: factory)
        remoteDevices = CoreMetrics.Gauge(label: "switchboard_cluster_remote_devices", factory: factory)
        busUp = CoreMetrics.Gauge(label: "switchboard_cluster_bus_up", factory: factory)
        busPublishFailures = CoreMetrics.Counter(
            label: "switchboard_cluster_bus_publish_failures_total", factory: factory)
    }
}
