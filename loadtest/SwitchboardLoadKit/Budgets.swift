//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a run must meet to pass: latency ceilings per operation, an error ceiling, the share of the
/// planned load actually offered, and the share of dropped clients that recovered every message.
public struct Budgets: Codable, Sendable, Equatable {
    /// Latency ceilings by metric name (`send_to_ack`, `send_to_delivery`, ...).
    public var latency: [String: LatencyBudget]
    /// Failed operations over all operations; 0 means no error is allowed.
    public var maxErrorRate: Double
    /// Operations started over operations planned (a generator that falls behind fails the run).
    public var minThroughputRatio: Double
    /// Clients whose connection was dropped and that got every message afterwards, over those dropped.
    public var minRecoveryRatio: Double
    /// Metrics that must have at least this many samples to be judged (fewer: FAIL, "too few samples").
    public var minSamples: Int

    public init(
        latency: [String: LatencyBudget], maxErrorRate: Double, minThroughputRatio: Double,
        minRecoveryRatio: Double, minSamples: Int
    ) {
        self.latency = latency
        self.maxErrorRate = maxErrorRate
        self.minThroughputRatio = minThroughputRatio
        self.minRecoveryRatio = minRecoveryRatio
        self.minSamples = minSamples
    }

    enum CodingKeys: String, CodingKey {
        case latency, maxErrorRate = "max_error_rate", minThroughputRatio = "min_throughput_ratio"
        case minRecoveryRatio = "min_recovery_ratio", minSamples = "min_samples"
    }

    /// The defaults: the apps' end-to-end ceilings of ../shared/REQUIREMENTS.md, of which the hub may use a
    /// tenth (its "small fraction"), tightened to the server-side goals of docs/benchmarks.md where that file
    /// sets one that was met (calls: p99 under 5 ms for invite to ring and decline to caller told, measured on
    /// a quiet machine with a lean generator; this generator decodes every event with Foundation, so it gets
    /// 4x that; voice: upload to delivered p95 under 300 ms for a 30 s recording).
    public static let defaults = Budgets(
        latency: [
            Metric.sendToAck: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why: "REQUIREMENTS: a sent message shown to the sender as sent within 1 s; the hub's share a tenth"),
            Metric.sendToDelivery: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why: "REQUIREMENTS: delivered to online recipients within 1 s; the hub's share a tenth"),
            Metric.historyPage: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why: "REQUIREMENTS: chat page and history within 1 s; the hub's share a tenth"),
            Metric.reactionSet: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why: "a reaction is shown like a sent message (REQUIREMENTS: within 1 s); the hub's share a tenth"),
            Metric.pinToggle: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why: "a pin is shown like a reaction (within 1 s); the hub's share a tenth"),
            Metric.login: LatencyBudget(
                p50Ms: 100, p99Ms: 300, endToEndMs: 3000,
                why:
                    """
                    REQUIREMENTS: login within 3 s; the hub's share a tenth (one Argon2id verification is ~20 ms of a \
                    core)
                    """
            ),
            Metric.inviteToRing: LatencyBudget(
                p50Ms: 5, p99Ms: 20, endToEndMs: 1000,
                why:
                    """
                    docs/benchmarks.md: invite to ring p99 under 5 ms server-side (met); x4 for this generator's \
                    decoding
                    """
            ),
            Metric.declineToCallerTold: LatencyBudget(
                p50Ms: 5, p99Ms: 20, endToEndMs: 1000,
                why:
                    """
                    REQUIREMENTS: call declined, caller told within 1 s; docs/benchmarks.md: p99 under 5 ms \
                    server-side (met); x4
                    """
            ),
            Metric.acceptToCallerTold: LatencyBudget(
                p50Ms: 5, p99Ms: 20, endToEndMs: 5000,
                why:
                    """
                    REQUIREMENTS: voice call connected within 5 s of the accept; docs/benchmarks.md: p99 under 5 ms \
                    (met); x4
                    """
            ),
            Metric.hangupToPeerTold: LatencyBudget(
                p50Ms: 5, p99Ms: 20, endToEndMs: 1000,
                why: "docs/benchmarks.md: hang-up to the other side p99 under 5 ms (met); x4"),
            Metric.signalRelay: LatencyBudget(
                p50Ms: 5, p99Ms: 20, endToEndMs: 5000,
                why: """
                    ICE candidates relayed: part of the 5 s call set-up; docs/benchmarks.md p99 under 5 ms (met); x4
                    """),
            Metric.timeoutToCallerTold: LatencyBudget(
                p50Ms: 50, p99Ms: 100, endToEndMs: 1000,
                why:
                    """
                    REQUIREMENTS: call timed out, caller told within 1 s; the hub's share a tenth (measured past the \
                    ring timeout)
                    """
            ),
            Metric.uploadToDelivery: LatencyBudget(
                p50Ms: 150, p99Ms: 300, endToEndMs: 1000,
                why:
                    """
                    docs/benchmarks.md: upload to delivered p95 under 300 ms for 30 s of speech; here p99 for shorter \
                    clips
                    """
            ),
            Metric.typingToPeer: LatencyBudget(
                p50Ms: 10, p99Ms: 100, endToEndMs: 1000,
                why: "typing indicators are live like messages (1 s); the hub's share a tenth"),
            Metric.presenceToFriend: LatencyBudget(
                p50Ms: 10, p99Ms: 100, endToEndMs: 1000,
                why: "presence is pushed on change like messages (1 s); the hub's share a tenth"),
            Metric.reportCreate: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why:
                    """
                    a report is a write the app confirms like a sent message (REQUIREMENTS: within 1 s); the hub's \
                    share a tenth
                    """
            ),
            Metric.exportReady: LatencyBudget(
                p50Ms: 250, p99Ms: 1000, endToEndMs: 10000,
                why:
                    """
                    no REQUIREMENTS figure: the app shows 'preparing' and notifies when ready; a test user's data \
                    (tens of messages) ready within 10 s; the hub's share a tenth (measured: ~40 ms)
                    """
            ),
            Metric.exportDownload: LatencyBudget(
                p50Ms: 50, p99Ms: 300, endToEndMs: 3000,
                why:
                    """
                    GET /export of a small archive over loopback (a new HTTP connection, one file read); no \
                    REQUIREMENTS figure, a tenth of 3 s
                    """
            ),
            Metric.deleteToClosed: LatencyBudget(
                p50Ms: 50, p99Ms: 200, endToEndMs: 2000,
                why:
                    """
                    issue 21: sessions revoked at once; the app leaves the deleted account within 2 s (a password \
                    check, Argon2id ~20 ms, and one transaction before the reply); the hub's share a tenth
                    """
            ),
            Metric.eventToNotification: LatencyBudget(
                p50Ms: 200, p99Ms: 3000, endToEndMs: 3000,
                why:
                    """
                    issue 22: a published event reaches every online member within 3 s (the target, p99 under 200 ms \
                    for 2,000 online members, is docs/benchmarks.md's community benchmark)
                    """
            ),
            Metric.communitiesList: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why:
                    """
                    the community tab is a screen like a chat page (REQUIREMENTS: within 1 s); the hub's share a tenth \
                    (issue 22: p99 under 10 ms server-side)
                    """
            ),
            Metric.calendarMonth: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why:
                    """
                    the calendar is a screen like a chat page (REQUIREMENTS: within 1 s); the hub's share a tenth \
                    (issue 22: p99 under 10 ms server-side)
                    """
            ),
            Metric.postCreate: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why:
                    """
                    a post is confirmed like a sent message (REQUIREMENTS: within 1 s); the hub's share a tenth (issue \
                    18: a 100,000-follower account's post acknowledged with p99 under 20 ms, judged by social-bench.py)
                    """
            ),
            Metric.postToLive: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why:
                    """
                    a post reaches every open home page like a message reaches online recipients (1 s); the hub's \
                    share a tenth (issue 18: 2,000 online followers p99 under 100 ms after the ack, judged by \
                    social-bench.py)
                    """
            ),
            Metric.timelineHome: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why:
                    """
                    the home timeline is a screen like a chat page (REQUIREMENTS: within 1 s); the hub's share a tenth \
                    (issue 18: p99 under 10 ms server-side, judged by social-bench.py)
                    """
            ),
            Metric.postLike: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why: "a like is shown like a reaction (within 1 s); the hub's share a tenth"),
            Metric.follow: LatencyBudget(
                p50Ms: 25, p99Ms: 100, endToEndMs: 1000,
                why: "a follow is confirmed like a sent message (within 1 s); the hub's share a tenth"),
        ],
        maxErrorRate: 0, minThroughputRatio: 0.95, minRecoveryRatio: 1.0, minSamples: 1)

    /// The defaults with the entries of `overrides` (a budgets file may name only some metrics) on top.
    public func merging(_ overrides: PartialBudgets) -> Budgets {
        var merged = self
        for (name, budget) in overrides.latency ?? [:] { merged.latency[name] = budget }
        if let v = overrides.maxErrorRate { merged.maxErrorRate = v }
        if let v = overrides.minThroughputRatio { merged.minThroughputRatio = v }
        if let v = overrides.minRecoveryRatio { merged.minRecoveryRatio = v }
        if let v = overrides.minSamples { merged.minSamples = v }
        return merged
    }
}
