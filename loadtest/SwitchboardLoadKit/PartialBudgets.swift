//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A budgets file: any subset of `Budgets`' fields.
public struct PartialBudgets: Codable, Sendable {
    public var latency: [String: LatencyBudget]?
    public var maxErrorRate: Double?
    public var minThroughputRatio: Double?
    public var minRecoveryRatio: Double?
    public var minSamples: Int?

    enum CodingKeys: String, CodingKey {
        case latency, maxErrorRate = "max_error_rate", minThroughputRatio = "min_throughput_ratio"
        case minRecoveryRatio = "min_recovery_ratio", minSamples = "min_samples"
    }
}
