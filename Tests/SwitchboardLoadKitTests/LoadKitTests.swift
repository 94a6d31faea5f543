//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardLoadKit
import Testing

@Suite struct VerdictTests {
    let budgets = Budgets(
        latency: ["send_to_ack": LatencyBudget(p50Ms: 10, p99Ms: 100, why: "test")], maxErrorRate: 0,
        minThroughputRatio: 0.95, minRecoveryRatio: 1, minSamples: 5)

    func summary(count: Int = 100, p50: Double = 5, p99: Double = 50) -> LatencySummary {
        LatencySummary(count: count, p50Ms: p50, p90Ms: p50, p99Ms: p99, p999Ms: p99, maxMs: p99)
    }

    func row(_ rows: [VerdictRow], _ name: String) -> VerdictRow? { rows.first { $0.check == name } }

    @Test func withinBudgetsPasses() {
        let rows = Verdict.evaluate(
            latencies: ["send_to_ack": summary()],
            operations: ["send": OperationCount(planned: 100, started: 100, succeeded: 100)],
            errorsByCode: [:], recovery: RecoveryResult(dropped: 10, recovered: 10, othersIncomplete: 0),
            budgets: budgets,
            expected: ["send_to_ack"])
        #expect(Verdict.passed(rows))
        #expect(Verdict.table(rows).hasSuffix("RESULT: PASS"))
    }

    @Test func p99OrP50OverFails() {
        for (p50, p99) in [(5.0, 101.0), (11.0, 50.0)] {
            let rows = Verdict.evaluate(
                latencies: ["send_to_ack": summary(p50: p50, p99: p99)], operations: [:], errorsByCode: [:],
                recovery: nil,
                budgets: budgets, expected: ["send_to_ack"])
            #expect(row(rows, "send_to_ack")?.pass == false)
            #expect(!Verdict.passed(rows))
            #expect(Verdict.table(rows).contains("RESULT: FAIL"))
        }
    }

    @Test func anExpectedMetricWithoutSamplesFails() {
        let none = Verdict.evaluate(
            latencies: [:], operations: [:], errorsByCode: [:], recovery: nil, budgets: budgets,
            expected: ["send_to_ack"])
        #expect(row(none, "send_to_ack")?.pass == false)
        let few = Verdict.evaluate(
            latencies: ["send_to_ack": summary(count: 4)], operations: [:], errorsByCode: [:], recovery: nil,
            budgets: budgets,
            expected: ["send_to_ack"])
        #expect(row(few, "send_to_ack")?.pass == false)
        // Not expected by the mix: no row at all.
        let unexpected = Verdict.evaluate(
            latencies: [:], operations: [:], errorsByCode: [:], recovery: nil, budgets: budgets, expected: [])
        #expect(row(unexpected, "send_to_ack") == nil)
    }

    @Test func errorsThroughputAndRecoveryAreJudged() {
        let errors = Verdict.evaluate(
            latencies: [:], operations: ["send": OperationCount(planned: 100, started: 100, succeeded: 99, failed: 1)],
            errorsByCode: ["send: unavailable": 1], recovery: nil, budgets: budgets, expected: [])
        #expect(row(errors, "errors")?.pass == false)
        #expect(row(errors, "errors")?.note == "send: unavailable 1")
        let behind = Verdict.evaluate(
            latencies: [:],
            operations: [
                "send": OperationCount(planned: 1000, started: 1000, succeeded: 1000),
                "call": OperationCount(planned: 100, started: 90, succeeded: 90),
            ], errorsByCode: [:], recovery: nil, budgets: budgets, expected: [])
        // 1,090 of 1,100 overall is above 95%, but calls alone are behind.
        #expect(row(behind, "offered load")?.pass == false)
        #expect(row(behind, "offered load")?.note == "behind: call")
        let lost = Verdict.evaluate(
            latencies: [:], operations: [:], errorsByCode: [:],
            recovery: RecoveryResult(dropped: 10, recovered: 9, othersIncomplete: 0),
            budgets: budgets, expected: [])
        #expect(row(lost, "recovery")?.pass == false)
        let others = Verdict.evaluate(
            latencies: [:], operations: [:], errorsByCode: [:],
            recovery: RecoveryResult(dropped: 0, recovered: 0, othersIncomplete: 1),
            budgets: budgets, expected: [])
        #expect(row(others, "recovery")?.pass == true)
        #expect(row(others, "delivery")?.pass == false)
    }

    @Test func budgetsFileOverridesOnlyWhatItNames() throws {
        let json = #"{"latency": {"login": {"p99_ms": 2000, "why": "slow disk"}}, "max_error_rate": 0.01}"#
        let partial = try JSONDecoder().decode(PartialBudgets.self, from: Data(json.utf8))
        let merged = Budgets.defaults.merging(partial)
        #expect(merged.latency["login"]?.p99Ms == 2000)
        #expect(merged.latency["login"]?.p50Ms == nil)
        #expect(merged.latency["send_to_ack"] == Budgets.defaults.latency["send_to_ack"])
        #expect(merged.maxErrorRate == 0.01)
        #expect(merged.minRecoveryRatio == 1)
    }

    @Test func budgetFilesInTheRepositoryDecode() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let defaults = try JSONDecoder().decode(
            Budgets.self, from: Data(contentsOf: root.appendingPathComponent("loadtest/budgets.json")))
        #expect(defaults == Budgets.defaults, "loadtest/budgets.json is `switchboard-load budgets`' output")
        let smoke = try JSONDecoder().decode(
            PartialBudgets.self, from: Data(contentsOf: root.appendingPathComponent("loadtest/budgets-smoke.json")))
        let merged = Budgets.defaults.merging(smoke)
        // The smoke run's ceilings are the apps' end-to-end budgets, never looser.
        for (name, budget) in merged.latency {
            if let e2e = budget.endToEndMs { #expect(budget.p99Ms <= e2e, "\(name)") }
        }
    }
}

@Suite struct DeliveryLedgerTests {
    @Test func completeWhenEveryMemberHasEverySeq() {
        var ledger = DeliveryLedger()
        ledger.add(conversationId: 7, members: [0, 1, 2], baseline: 1)
        ledger.acknowledged(client: 0, conversationId: 7, seq: 2)
        ledger.delivered(client: 1, conversationId: 7, seq: 2)
        ledger.delivered(client: 2, conversationId: 7, seq: 2)
        ledger.acknowledged(client: 1, conversationId: 7, seq: 3)
        ledger.delivered(client: 0, conversationId: 7, seq: 3)
        ledger.delivered(client: 2, conversationId: 7, seq: 3)
        // Seqs at or below the baseline (before the run) are ignored.
        ledger.delivered(client: 2, conversationId: 7, seq: 1)
        #expect(ledger.shortfalls().isEmpty)
        #expect(ledger.storedDuringRun == 2)
    }

    @Test func missingAndDuplicateSeqsAreFound() {
        var ledger = DeliveryLedger()
        ledger.add(conversationId: 7, members: [0, 1], baseline: 0)
        ledger.add(conversationId: 8, members: [1, 2], baseline: 0)
        ledger.acknowledged(client: 0, conversationId: 7, seq: 1)
        ledger.acknowledged(client: 0, conversationId: 7, seq: 2)
        ledger.delivered(client: 1, conversationId: 7, seq: 2)  // seq 1 never reached client 1
        ledger.delivered(client: 1, conversationId: 8, seq: 1)  // a system message: client 2 must have it too
        ledger.delivered(client: 2, conversationId: 8, seq: 1)
        ledger.delivered(client: 2, conversationId: 8, seq: 1)  // twice
        let found = ledger.shortfalls()
        #expect(found.count == 2)
        #expect(
            found[0]
                == DeliveryLedger.Shortfall(client: 1, conversationId: 7, missing: [1], missingCount: 1, duplicates: 0))
        #expect(
            found[1]
                == DeliveryLedger.Shortfall(client: 2, conversationId: 8, missing: [], missingCount: 0, duplicates: 1))
        #expect(ledger.shortfalls(clients: [2]).count == 1)
    }

    @Test func aSeqNobodyReportedIsAGapForEveryone() {
        var ledger = DeliveryLedger()
        ledger.add(conversationId: 1, members: [0, 1], baseline: 0)
        ledger.acknowledged(client: 0, conversationId: 1, seq: 3)
        ledger.delivered(client: 1, conversationId: 1, seq: 3)
        // Seqs 1 and 2 were stored (seq 3 exists) but nobody has them.
        #expect(ledger.shortfalls().map(\.missingCount) == [2, 2])
    }
}

@Suite struct PacerTests {
    @Test func handsOutEachOperationOnceWhenDue() {
        var pacer = Pacer(rate: 10, start: 1_000, duration: 1)
        #expect(pacer.planned == 10)
        var (due, next) = pacer.take(now: 999)
        #expect(due.isEmpty && next == 1_000)
        (due, next) = pacer.take(now: 1_000)
        #expect(due == 0..<1 && next == 1_000 + 100_000_000)
        // Late: everything due so far at once (open loop), nothing twice.
        (due, next) = pacer.take(now: 1_000 + 450_000_000)
        #expect(due == 1..<5)
        (due, next) = pacer.take(now: 10_000_000_000)
        #expect(due == 5..<10 && next == nil)
        #expect(pacer.take(now: 20_000_000_000).due.isEmpty)
    }

    @Test func aPhaseShiftsEveryOperationWithinItsPeriodAndPlansAsMany() {
        var pacer = Pacer(rate: 10, start: 1_000, duration: 1, phase: 0.5)
        #expect(pacer.planned == 10)
        #expect(pacer.due(0) == 1_000 + 50_000_000 && pacer.due(9) == 1_000 + 950_000_000)
        var (due, next) = pacer.take(now: 1_000)
        #expect(due.isEmpty && next == 1_000 + 50_000_000)
        (due, next) = pacer.take(now: 1_000 + 150_000_000)
        #expect(due == 0..<2 && next == 1_000 + 250_000_000)
        (due, next) = pacer.take(now: 10_000_000_000)
        #expect(due == 2..<10 && next == nil)
    }

    @Test func aRareKindIsShiftedByAtMostOneSecond() {
        // One operation every 4 s: its phase moves it by half a second, not by half of its 4 s period, so a short
        // run still holds it early.
        let pacer = Pacer(rate: 0.25, start: 0, duration: 5, phase: 0.5)
        #expect(pacer.planned == 2)
        #expect(pacer.due(0) == 500_000_000)
        #expect(pacer.due(1) == 4_500_000_000)
    }

    @Test func kindsGetDifferentPhasesTheSameInEveryRun() {
        let kinds = ["send_direct", "send_group", "history", "reaction", "typing", "login", "call", "hangup"]
        let phases = kinds.map { Pacer.phase(of: $0) }
        #expect(phases.allSatisfy { $0 >= 0 && $0 < 1 })
        #expect(Set(phases).count == kinds.count)
        #expect(phases == kinds.map { Pacer.phase(of: $0) })
    }

    @Test func zeroRatePlansNothing() {
        var pacer = Pacer(rate: 0, start: 0, duration: 60)
        #expect(pacer.planned == 0)
        #expect(pacer.take(now: 1_000_000_000_000).next == nil)
    }
}

@Suite struct SyntheticSpeechTests {
    @Test func isAWaveFileOfTheAskedLengthAndVariantsDiffer() {
        let a = SyntheticSpeech.wav(seconds: 2, sampleRate: 16_000, variant: 0)
        let b = SyntheticSpeech.wav(seconds: 2, sampleRate: 16_000, variant: 1)
        #expect(a.count == 44 + 2 * 32_000)
        #expect(Array(a[0..<4]) == Array("RIFF".utf8) && Array(a[8..<16]) == Array("WAVEfmt ".utf8))
        #expect(Array(a[36..<40]) == Array("data".utf8))
        #expect(a != b)
        // Not silence: the samples reach a speech-like level.
        var peak = 0
        for i in stride(from: 44, to: a.count, by: 2) {
            peak = max(peak, abs(Int(Int16(bitPattern: UInt16(a[i]) | UInt16(a[i + 1]) << 8))))
        }
        #expect(peak > 3000)
    }
}

@Suite struct LatencyRecorderTests {
    @Test func summarisesInMilliseconds() {
        let recorder = LatencyRecorder()
        for ms in 1...100 { recorder.record("x", nanoseconds: UInt64(ms) * 1_000_000) }
        let s = recorder.summaries()["x"]
        #expect(s?.count == 100)
        #expect(abs((s?.p50Ms ?? 0) - 50) < 0.1)
        #expect(abs((s?.p99Ms ?? 0) - 99) < 0.1)
        #expect(abs((s?.maxMs ?? 0) - 100) < 0.1)
    }
}
