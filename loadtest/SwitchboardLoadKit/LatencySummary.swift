//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Percentiles of one metric, in milliseconds.
public struct LatencySummary: Codable, Sendable, Equatable {
    public var count: Int
    public var p50Ms: Double
    public var p90Ms: Double
    public var p99Ms: Double
    public var p999Ms: Double
    public var maxMs: Double

    public init(count: Int, p50Ms: Double, p90Ms: Double, p99Ms: Double, p999Ms: Double, maxMs: Double) {
        self.count = count
        self.p50Ms = p50Ms
        self.p90Ms = p90Ms
        self.p99Ms = p99Ms
        self.p999Ms = p999Ms
        self.maxMs = maxMs
    }

    enum CodingKeys: String, CodingKey {
        case count, p50Ms = "p50_ms", p90Ms = "p90_ms", p99Ms = "p99_ms", p999Ms = "p99_9_ms", maxMs = "max_ms"
    }
}
