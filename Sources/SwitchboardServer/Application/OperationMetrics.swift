//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CoreMetrics
import Prometheus
import SwitchboardProtocol

/// Per-op instruments of protocol v1: `switchboard_requests_total{op}`,
/// `switchboard_request_errors_total{op,code}` and the `switchboard_request_duration_seconds{op}` histogram.
///
/// The `op` label is bounded: an op outside the known set is counted as `unknown`. The instruments of every known
/// op are made once (immutable dictionaries, so any queue may record); error counters are made on first use (the
/// factory keeps one per label set). Durations run from the decoded request to its reply (or, for an op whose
/// effect is handed to an owner, to the hand-off).
final class OperationMetrics: Sendable {
    private let factory: PrometheusMetricsFactory
    private let requests: [String: CoreMetrics.Counter]
    private let durations: [String: CoreMetrics.Timer]

    /// The label of ops outside the known set.
    static let unknownOp = "unknown"

    init(ops: Set<String>, factory: PrometheusMetricsFactory) {
        self.factory = factory
        var requests: [String: CoreMetrics.Counter] = [:]
        var durations: [String: CoreMetrics.Timer] = [:]
        for op in ops.union([Self.unknownOp]) {
            requests[op] = CoreMetrics.Counter(
                label: "switchboard_requests_total", dimensions: [("op", op)], factory: factory)
            durations[op] = CoreMetrics.Timer(
                label: "switchboard_request_duration_seconds", dimensions: [("op", op)], factory: factory)
        }
        self.requests = requests
        self.durations = durations
    }

    /// The label for `op` (bounded).
    func label(_ op: String) -> String { requests[op] != nil ? op : Self.unknownOp }

    /// Counts a decoded request.
    func received(_ op: String) {
        (requests[op] ?? requests[Self.unknownOp])?.increment()
    }

    /// Records how long a request took (nanoseconds of `EventLoop.now()`).
    func finished(_ op: String, nanoseconds: UInt64) {
        (durations[op] ?? durations[Self.unknownOp])?.recordNanoseconds(Int64(clamping: nanoseconds))
    }

    /// Counts an error answer.
    func failed(_ op: String, code: ErrorCode) {
        CoreMetrics.Counter(
            label: "switchboard_request_errors_total", dimensions: [("op", label(op)), ("code", code.rawValue)],
            factory: factory
        ).increment()
    }
}
