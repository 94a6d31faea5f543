//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The latency ceiling of one measured operation.
public struct LatencyBudget: Codable, Sendable, Equatable {
    /// The 50th percentile may not exceed this (milliseconds); nil: not checked.
    public var p50Ms: Double?
    /// The 99th percentile may not exceed this (milliseconds).
    public var p99Ms: Double
    /// The apps' end-to-end ceiling from ../shared/REQUIREMENTS.md (milliseconds), for the record.
    public var endToEndMs: Double?
    /// Where the numbers come from.
    public var why: String

    public init(p50Ms: Double? = nil, p99Ms: Double, endToEndMs: Double? = nil, why: String) {
        self.p50Ms = p50Ms
        self.p99Ms = p99Ms
        self.endToEndMs = endToEndMs
        self.why = why
    }

    enum CodingKeys: String, CodingKey {
        case p50Ms = "p50_ms", p99Ms = "p99_ms", endToEndMs = "end_to_end_ms", why
    }
}
