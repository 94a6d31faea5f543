//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Judges a run against its budgets.
public enum Verdict {
    /// The table's rows: one per latency metric measured or budgeted, then errors, throughput, recovery.
    /// - Parameters:
    ///   - expected: metrics the scenario mix was meant to exercise; a budgeted metric among them with fewer
    ///     than `minSamples` samples fails (a scenario that silently did nothing must not pass).
    public static func evaluate(
        latencies: [String: LatencySummary], operations: [String: OperationCount], errorsByCode: [String: Int],
        recovery: RecoveryResult?, budgets: Budgets, expected: Set<String>
    ) -> [VerdictRow] {
        var rows: [VerdictRow] = []
        let names = Metric.order + latencies.keys.filter { !Metric.order.contains($0) }.sorted()
        for name in names {
            let summary = latencies[name]
            let budget = budgets.latency[name]
            guard summary != nil || (budget != nil && expected.contains(name)) else { continue }
            let count = summary?.count ?? 0
            let measured =
                summary.map {
                    "n=\($0.count) p50 \(fmt($0.p50Ms)) p99 \(fmt($0.p99Ms)) max \(fmt($0.maxMs))"
                } ?? "n=0"
            guard let budget else {
                rows.append(VerdictRow(check: name, measured: measured, budget: "-", pass: true, note: "reported only"))
                continue
            }
            var failures: [String] = []
            if expected.contains(name) && count < budgets.minSamples {
                failures.append("too few samples (\(count) < \(budgets.minSamples))")
            }
            if let summary {
                if summary.p99Ms > budget.p99Ms { failures.append("p99 over") }
                if let p50 = budget.p50Ms, summary.p50Ms > p50 { failures.append("p50 over") }
            }
            let budgetText = (budget.p50Ms.map { "p50 <= \(fmt($0)), " } ?? "") + "p99 <= \(fmt(budget.p99Ms))"
            rows.append(
                VerdictRow(
                    check: name, measured: measured, budget: budgetText, pass: failures.isEmpty,
                    note: failures.isEmpty ? nil : failures.joined(separator: "; ")))
        }
        let total = operations.values.reduce(0) { $0 + $1.started }
        let failed = operations.values.reduce(0) { $0 + $1.failed }
        let rate = total == 0 ? 0 : Double(failed) / Double(total)
        let codes = errorsByCode.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        rows.append(
            VerdictRow(
                check: "errors", measured: "\(failed) of \(total) operations (\(pct(rate)))",
                budget: "<= \(pct(budgets.maxErrorRate))", pass: rate <= budgets.maxErrorRate,
                note: codes.isEmpty ? nil : codes))
        let planned = operations.values.reduce(0) { $0 + $1.planned }
        let startedPlanned = operations.values.reduce(0) { $0 + min($1.started, $1.planned) }
        let ratio = planned == 0 ? 1 : Double(startedPlanned) / Double(planned)
        let behind = operations.filter {
            $0.value.planned > 0 && Double($0.value.started) < Double($0.value.planned) * budgets.minThroughputRatio
        }
        .keys.sorted()
        rows.append(
            VerdictRow(
                check: "offered load", measured: "\(startedPlanned) of \(planned) planned operations (\(pct(ratio)))",
                budget: ">= \(pct(budgets.minThroughputRatio)) of each kind",
                pass: behind.isEmpty && ratio >= budgets.minThroughputRatio,
                note: behind.isEmpty ? nil : "behind: " + behind.joined(separator: ", ")))
        if let recovery {
            rows.append(
                VerdictRow(
                    check: "recovery",
                    measured:
                        """
                        \(recovery.recovered) of \(recovery.dropped) dropped clients got every message \
                        (\(pct(recovery.ratio)))
                        """,
                    budget: ">= \(pct(budgets.minRecoveryRatio))", pass: recovery.ratio >= budgets.minRecoveryRatio))
            if !recovery.kills.isEmpty {
                let signalled = recovery.kills.allSatisfy { $0.result == "killed" }
                let pids = recovery.kills.map { "\($0.pid) at \(String(format: "%.1f", $0.atSeconds)) s: \($0.result)" }
                    .joined(separator: ", ")
                // A kill that took no client down tested nothing: it fails too.
                var notes = [pids]
                if !signalled { notes.append("not every process was killed") }
                if recovery.killed == 0 { notes.append("no client lost its server") }
                rows.append(
                    VerdictRow(
                        check: "failover",
                        measured:
                            """
                            \(recovery.killedRecovered) of \(recovery.killed) clients of killed servers got every \
                            message (\(pct(recovery.killedRatio)))
                            """,
                        budget: ">= \(pct(budgets.minRecoveryRatio))",
                        pass: signalled && recovery.killed > 0 && recovery.killedRatio >= budgets.minRecoveryRatio,
                        note: notes.joined(separator: "; ")))
            }
            rows.append(
                VerdictRow(
                    check: "delivery",
                    measured: "\(recovery.othersIncomplete) other clients missing or doubling a message",
                    budget: "0", pass: recovery.othersIncomplete == 0))
        }
        return rows
    }

    /// PASS when every row passes.
    public static func passed(_ rows: [VerdictRow]) -> Bool { rows.allSatisfy(\.pass) }

    /// The rows as a fixed-width text table.
    public static func table(_ rows: [VerdictRow]) -> String {
        let header = ["check", "measured (ms)", "budget (ms)", "result"]
        let body = rows.map {
            [$0.check, $0.measured, $0.budget, ($0.pass ? "PASS" : "FAIL") + ($0.note.map { " (\($0))" } ?? "")]
        }
        var widths = header.map(\.count)
        for row in body { for (i, cell) in row.enumerated() where i < 3 { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, c in i < 3 ? c.padding(toLength: widths[i], withPad: " ", startingAt: 0) : c }
                .joined(separator: "  ")
        }
        var out = [line(header), line(widths.prefix(3).map { String(repeating: "-", count: $0) } + ["------"])]
        out += body.map(line)
        out.append("")
        out.append("RESULT: " + (passed(rows) ? "PASS" : "FAIL"))
        return out.joined(separator: "\n")
    }

    static func fmt(_ ms: Double) -> String {
        ms >= 100 ? String(format: "%.0f", ms) : ms >= 10 ? String(format: "%.1f", ms) : String(format: "%.2f", ms)
    }

    static func pct(_ ratio: Double) -> String {
        ratio == 0 ? "0%" : String(format: "%.2f%%", ratio * 100)
    }
}
