//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Histogram

/// HdrHistograms of latencies (recorded in microseconds, 1 us to 10 min, 3 significant digits) by
/// metric name; thread-safe.
public final class LatencyRecorder: Sendable {
    private let histograms = Locked([String: Histogram<UInt64>]())
    /// Every sample with the monotonic time it was recorded at, when tracing (`SWITCHBOARD_LOAD_TRACE`): to line a
    /// tail up with what else happened then.
    private let trace: Locked<[(metric: String, at: UInt64, ns: UInt64)]>?

    public init() {
        trace = ProcessInfo.processInfo.environment["SWITCHBOARD_LOAD_TRACE"] != nil ? Locked([]) : nil
    }

    /// Records one latency in nanoseconds (clamped to the histogram's range).
    public func record(_ metric: String, nanoseconds: UInt64) {
        if let trace {
            let at = DispatchTime.now().uptimeNanoseconds
            trace.withLock { $0.append((metric, at, nanoseconds)) }
        }
        let us = min(max(nanoseconds / 1000, 1), 600_000_000)
        histograms.withLock { all in
            if all[metric] == nil {
                all[metric] = Histogram<UInt64>(
                    lowestDiscernibleValue: 1, highestTrackableValue: 600_000_000,
                    numberOfSignificantValueDigits: .three)
            }
            _ = all[metric]!.record(us)
        }
    }

    /// Forgets everything (after a warm-up).
    public func reset() {
        histograms.withLock { $0.removeAll() }
        trace?.withLock { $0.removeAll() }
    }

    /// Writes the trace (one line per sample: monotonic seconds when recorded, metric, milliseconds) to `path`.
    public func writeTrace(to path: String) {
        guard let trace else { return }
        let lines = trace.withLock { samples in
            samples.map { "\(Double($0.at) / 1e9) \($0.metric) \(Double($0.ns) / 1e6)" }
        }
        try? (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// The percentiles of every metric recorded so far.
    public func summaries() -> [String: LatencySummary] {
        histograms.withLock { all in
            all.mapValues { h in
                func ms(_ us: UInt64) -> Double { (Double(us) / 10).rounded() / 100 }
                return LatencySummary(
                    count: Int(h.totalCount), p50Ms: ms(h.valueAtPercentile(50)), p90Ms: ms(h.valueAtPercentile(90)),
                    p99Ms: ms(h.valueAtPercentile(99)), p999Ms: ms(h.valueAtPercentile(99.9)), maxMs: ms(h.max))
            }
        }
    }
}
