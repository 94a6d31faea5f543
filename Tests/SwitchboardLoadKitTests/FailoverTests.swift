//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardLoadKit
import Testing

@Suite struct SpreadTests {
    @Test func clientsStartRoundRobinAndFailOverToTheNextInTurn() {
        #expect(Spread.order(client: 0, count: 3) == [0, 1, 2])
        #expect(Spread.order(client: 1, count: 3) == [1, 2, 0])
        #expect(Spread.order(client: 2, count: 3) == [2, 0, 1])
        #expect(Spread.order(client: 4, count: 3) == [1, 2, 0])
        #expect(Spread.order(client: 7, count: 1) == [0])
    }

    @Test func everyOrderVisitsEveryURLOnce() {
        for count in 1...5 {
            for client in 0..<12 {
                let order = Spread.order(client: client, count: count)
                #expect(order.sorted() == Array(0..<count))
                // Each failover moves to the next URL in turn.
                for (a, b) in zip(order, order.dropFirst()) { #expect(b == (a + 1) % count) }
            }
        }
    }

    @Test func startCountsDifferByAtMostOne() {
        #expect(Spread.startCounts(clients: 10, count: 3) == [4, 3, 3])
        #expect(Spread.startCounts(clients: 2, count: 3) == [1, 1, 0])
        for clients in 0..<40 {
            let counts = Spread.startCounts(clients: clients, count: 4)
            #expect(counts.reduce(0, +) == clients)
            // Matches what `order` gives each client first.
            let firsts = (0..<clients).map { Spread.order(client: $0, count: 4)[0] }
            #expect((0..<4).map { u in firsts.filter { $0 == u }.count } == counts)
        }
    }
}

@Suite struct KillPlanTests {
    func plan(_ pids: [Int32], _ fraction: Double) -> Result<KillPlan, KillPlanError> {
        KillPlan.make(pids: pids, fraction: fraction, ownPid: 500, parentPid: 400)
    }

    @Test func firesAtItsShareOfTheMix() throws {
        let p = try plan([1234, 1235, 1234], 0.5).get()
        #expect(p.pids == [1234, 1235])
        #expect(p.time(start: 1_000_000_000, duration: 60) == 31_000_000_000)
        let q = try plan([99], 0.25).get()
        #expect(q.time(start: 0, duration: 10) == 2_500_000_000)
    }

    @Test func refusesWhatItMustNeverKill() {
        #expect(plan([], 0.5) == .failure(.noPids))
        #expect(plan([0], 0.5) == .failure(.refusedPid(0)))
        #expect(plan([-1], 0.5) == .failure(.refusedPid(-1)))
        #expect(plan([1], 0.5) == .failure(.refusedPid(1)))
        #expect(plan([1234, 500], 0.5) == .failure(.refusedPid(500)))
        #expect(plan([400], 0.5) == .failure(.refusedPid(400)))
        #expect(plan([1234], 0) == .failure(.fractionOutOfRange(0)))
        #expect(plan([1234], 1) == .failure(.fractionOutOfRange(1)))
        #expect(
            KillPlan.make(pids: [1234], fraction: 0.5, attributionWindow: 0, ownPid: 1, parentPid: 1)
                == .failure(.windowOutOfRange(0)))
    }

    @Test func attributesOnlyConnectionsLostWithinTheWindowAfterTheKill() throws {
        let p = try KillPlan.make(pids: [1234], fraction: 0.5, attributionWindow: 10, ownPid: 1, parentPid: 1).get()
        let kill: UInt64 = 50_000_000_000
        #expect(!p.attributes(lostAt: kill, killedAt: nil))
        #expect(!p.attributes(lostAt: kill - 1, killedAt: kill))
        #expect(p.attributes(lostAt: kill, killedAt: kill))
        #expect(p.attributes(lostAt: kill + 10_000_000_000, killedAt: kill))
        #expect(!p.attributes(lostAt: kill + 10_000_000_001, killedAt: kill))
    }
}

@Suite struct FailoverVerdictTests {
    let budgets = Budgets(latency: [:], maxErrorRate: 0, minThroughputRatio: 0.95, minRecoveryRatio: 1, minSamples: 1)

    func failover(_ r: RecoveryResult) -> VerdictRow? {
        Verdict.evaluate(
            latencies: [:], operations: [:], errorsByCode: [:], recovery: r, budgets: budgets, expected: []
        )
        .first { $0.check == "failover" }
    }

    @Test func noKillNoRow() {
        #expect(failover(RecoveryResult(dropped: 3, recovered: 3, othersIncomplete: 0)) == nil)
    }

    @Test func killedClientsMustAllRecover() {
        let killed = [KillRecord(pid: 1234, atSeconds: 30, result: "killed")]
        let ok = failover(
            RecoveryResult(
                dropped: 0, recovered: 0, othersIncomplete: 0, killed: 20, killedRecovered: 20, kills: killed))
        #expect(ok?.pass == true)
        #expect(ok?.measured.contains("20 of 20") == true)
        #expect(ok?.note?.contains("1234 at 30.0 s: killed") == true)
        let short = failover(
            RecoveryResult(
                dropped: 0, recovered: 0, othersIncomplete: 0, killed: 20, killedRecovered: 19, kills: killed))
        #expect(short?.pass == false)
    }

    @Test func aKillThatTookNobodyDownOrFailedFails() {
        let nobody = failover(
            RecoveryResult(
                dropped: 0, recovered: 0, othersIncomplete: 0,
                kills: [KillRecord(pid: 1234, atSeconds: 30, result: "killed")]))
        #expect(nobody?.pass == false)
        let missed = failover(
            RecoveryResult(
                dropped: 0, recovered: 0, othersIncomplete: 0, killed: 5, killedRecovered: 5,
                kills: [KillRecord(pid: 1234, atSeconds: 30, result: "No such process")]))
        #expect(missed?.pass == false)
    }
}
