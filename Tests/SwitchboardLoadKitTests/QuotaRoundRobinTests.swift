//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardLoadKit
import Testing

@Suite struct QuotaRoundRobinTests {
    @Test func takesEveryoneInTurnBeforeAnyoneAgain() {
        var r = QuotaRoundRobin(quota: 3)
        let picks = (0..<8).compactMap { _ in r.pick(count: 4) }
        #expect(picks == [0, 1, 2, 3, 0, 1, 2, 3])
    }

    @Test func neverExceedsTheQuota() {
        var r = QuotaRoundRobin(quota: 2)
        let picks = (0..<10).compactMap { _ in r.pick(count: 3) }
        #expect(picks == [0, 1, 2, 0, 1, 2])
        #expect(r.pick(count: 3) == nil)
        #expect(!r.hasQuota(1))
    }

    @Test func skipsBusyAndIneligibleUsersWithoutChargingThem() {
        var r = QuotaRoundRobin(quota: 1)
        #expect(r.pick(count: 5, busy: [0], eligible: { $0 != 1 }) == 2)
        #expect(r.pick(count: 5, busy: [0], eligible: { $0 != 1 }) == 3)
        #expect(r.pick(count: 5, busy: [0], eligible: { $0 != 1 }) == 4)
        // Wraps around: 0 is free now and 1 eligible, both with quota left.
        #expect(r.pick(count: 5) == 0)
        #expect(r.pick(count: 5) == 1)
        #expect(r.pick(count: 5) == nil)
    }

    @Test func nobodyEligibleOrNoUsersIsNil() {
        var r = QuotaRoundRobin(quota: 3)
        #expect(r.pick(count: 4, eligible: { _ in false }) == nil)
        #expect(r.pick(count: 0) == nil)
        #expect(r.used.isEmpty)
        #expect(r.cursor == 0)
    }

    @Test func chargeCountsTowardTheQuota() {
        var r = QuotaRoundRobin(quota: 2)
        let charged = [r.charge(7), r.charge(7), r.charge(7), r.charge(8)]
        #expect(charged == [true, true, false, true])
        #expect(r.used[7] == 2)
        #expect(!r.hasQuota(7))
    }
}

@Suite struct RendezvousTests {
    @Test func anArrivalBeforeTheWaitIsReturnedAtOnce() async {
        let r = Rendezvous<String>()
        r.arrived(7, at: 123, "ready")
        let got = await r.wait(7, timeout: 5)
        #expect(got?.at == 123)
        #expect(got?.value == "ready")
        #expect(r.pending == 0)
    }

    @Test func aWaiterIsResumedByTheArrival() async {
        let r = Rendezvous<String>()
        async let got = r.wait(9, timeout: 30)
        // Arrive once the waiter is registered (bounded: at most 10 s).
        for _ in 0..<1000 where r.pending == 0 { try? await Task.sleep(nanoseconds: 10_000_000) }
        r.arrived(9, at: 55, "failed")
        let value = await got
        #expect(value?.at == 55)
        #expect(value?.value == "failed")
        #expect(r.pending == 0)
    }

    @Test func onlyTheFirstArrivalCounts() async {
        let r = Rendezvous<Int>()
        r.arrived(1, at: 10, 1)
        r.arrived(1, at: 20, 2)
        let got = await r.wait(1, timeout: 1)
        #expect(got?.at == 10)
        #expect(got?.value == 1)
    }

    @Test func aWaitWithoutArrivalTimesOutAndLeavesNothing() async {
        let r = Rendezvous<String>()
        let got = await r.wait(3, timeout: 0.05)
        #expect(got == nil)
        #expect(r.pending == 0)
        // A late arrival is kept (for a wait that never comes) until forgotten.
        r.arrived(3, at: 1, "ready")
        #expect(r.pending == 1)
        r.forget(3)
        #expect(r.pending == 0)
    }

    @Test func keysAreIndependent() async {
        let r = Rendezvous<String>()
        r.arrived(1, at: 1, "a")
        r.arrived(2, at: 2, "b")
        #expect(await r.wait(2, timeout: 1)?.value == "b")
        #expect(await r.wait(1, timeout: 1)?.value == "a")
    }
}
