//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Counts of one kind of operation over a run.
public struct OperationCount: Codable, Sendable, Equatable {
    /// Scheduled by the plan (rate x duration).
    public var planned: Int
    /// Actually started (a generator that falls behind starts fewer).
    public var started: Int
    /// Completed as intended.
    public var succeeded: Int
    /// Failed: server errors by code, timeouts, lost connections, missing events.
    public var failed: Int

    public init(planned: Int = 0, started: Int = 0, succeeded: Int = 0, failed: Int = 0) {
        self.planned = planned
        self.started = started
        self.succeeded = succeeded
        self.failed = failed
    }
}

/// The recovery check's result.
public struct RecoveryResult: Codable, Sendable, Equatable {
    /// Clients whose connection was dropped mid-run.
    public var dropped: Int
    /// Of those, clients that afterwards had every message of every conversation exactly once.
    public var recovered: Int
    /// Clients neither dropped nor killed that lack a message or got one twice (should be 0).
    public var othersIncomplete: Int
    /// Clients whose connection a killed server process took down (`--kill-pid`), that failed over to another.
    public var killed: Int
    /// Of those, clients that afterwards had every message of every conversation exactly once.
    public var killedRecovered: Int
    /// The processes killed and when (seconds into the measured mix); empty without `--kill-pid`.
    public var kills: [KillRecord]

    public init(
        dropped: Int, recovered: Int, othersIncomplete: Int, killed: Int = 0, killedRecovered: Int = 0,
        kills: [KillRecord] = []
    ) {
        self.dropped = dropped
        self.recovered = recovered
        self.othersIncomplete = othersIncomplete
        self.killed = killed
        self.killedRecovered = killedRecovered
        self.kills = kills
    }

    /// recovered / dropped (1 when nobody was dropped).
    public var ratio: Double { dropped == 0 ? 1 : Double(recovered) / Double(dropped) }
    /// killedRecovered / killed (1 when no client lost its server).
    public var killedRatio: Double { killed == 0 ? 1 : Double(killedRecovered) / Double(killed) }

    enum CodingKeys: String, CodingKey {
        case dropped, recovered, othersIncomplete, killed, killedRecovered = "killed_recovered", kills
    }
}

/// One process the kill switch signalled.
public struct KillRecord: Codable, Sendable, Equatable {
    public var pid: Int32
    /// Seconds since the start of the measured mix.
    public var atSeconds: Double
    /// "killed", or why not (`kill(2)`'s error, e.g. "no such process").
    public var result: String

    public init(pid: Int32, atSeconds: Double, result: String) {
        self.pid = pid
        self.atSeconds = atSeconds
        self.result = result
    }

    enum CodingKeys: String, CodingKey {
        case pid, atSeconds = "at_s", result
    }
}

/// One row of the PASS/FAIL table.
public struct VerdictRow: Codable, Sendable, Equatable {
    public var check: String
    public var measured: String
    public var budget: String
    public var pass: Bool
    public var note: String?

    public init(check: String, measured: String, budget: String, pass: Bool, note: String? = nil) {
        self.check = check
        self.measured = measured
        self.budget = budget
        self.pass = pass
        self.note = note
    }
}

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
                        "\(recovery.recovered) of \(recovery.dropped) dropped clients got every message (\(pct(recovery.ratio)))",
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
                            "\(recovery.killedRecovered) of \(recovery.killed) clients of killed servers got every message (\(pct(recovery.killedRatio)))",
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
