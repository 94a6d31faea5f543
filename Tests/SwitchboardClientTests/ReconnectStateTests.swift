//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardClient
import Testing

/// The client's reconnect and resume state, driven without sockets: the back-off on a simulated clock (the
/// client schedules its next attempt `after` seconds from the drop or the failed attempt) and the resume
/// tracker through a drop, a catch-up and live events racing it.
@Suite struct ReconnectStateTests {
    /// A simulated reconnect loop: every attempt fails until `succeedAt` (seconds on the simulated clock), then
    /// the connection holds. Returns the instants of the attempts.
    static func attempts(
        policy: ReconnectPolicy, randoms: [Double], succeedAt: Double?, horizon: Double = 3600
    ) -> (times: [Double], gaveUp: Bool) {
        var backoff = ReconnectBackoff(policy: policy)
        var now = 0.0
        var times: [Double] = []
        var draws = randoms.makeIterator()
        // Bounded: at most 10,000 attempts, or the horizon.
        for _ in 0..<10_000 {
            switch backoff.next(random: draws.next() ?? 0.5) {
            case .giveUp:
                return (times, true)
            case .retry(let after, let attempt):
                #expect(attempt == times.count + 1)
                now += after
                guard now <= horizon else { return (times, false) }
                times.append(now)
                if let succeedAt, now >= succeedAt {
                    backoff.reset()
                    #expect(backoff.attempts == 0)
                    return (times, false)
                }
            }
        }
        return (times, false)
    }

    @Test func attemptsFollowTheScheduleUntilTheServerIsBack() {
        var policy = ReconnectPolicy()
        policy.initialDelay = 0.25
        policy.maximumDelay = 4
        policy.multiplier = 2
        policy.jitter = 0
        // The server is back after 10 s: attempts at 0.25, 0.75, 1.75, 3.75, 7.75, 11.75 (capped at 4 s apart).
        let run = Self.attempts(policy: policy, randoms: [], succeedAt: 10)
        #expect(!run.gaveUp)
        #expect(run.times == [0.25, 0.75, 1.75, 3.75, 7.75, 11.75])
    }

    @Test func jitterStaysWithinItsShareAndAttemptsAreBounded() {
        var policy = ReconnectPolicy()
        policy.initialDelay = 1
        policy.maximumDelay = 8
        policy.multiplier = 2
        policy.jitter = 0.5
        policy.maximumAttempts = 5
        let low = Self.attempts(policy: policy, randoms: Array(repeating: 0, count: 10), succeedAt: nil)
        let high = Self.attempts(policy: policy, randoms: Array(repeating: 0.999_999, count: 10), succeedAt: nil)
        #expect(low.gaveUp && high.gaveUp)
        #expect(low.times.count == 5 && high.times.count == 5)
        // Half of each delay is fixed, half random: 0.5+1+2+4+4 at least, 1+2+4+8+8 at most.
        #expect(abs(low.times.last! - 11.5) < 1e-6)
        #expect(abs(high.times.last! - 23) < 1e-4)
        let disabled = Self.attempts(policy: .disabled, randoms: [], succeedAt: nil)
        #expect(disabled.gaveUp && disabled.times.isEmpty)
    }

    @Test func aDropThenACatchUpRacingLiveEventsGivesEachMessageOnce() {
        var tracker = ResumeTracker()
        // Session start: the list says conversation 1 is at 10, conversation 2 at 3.
        tracker.setBaseline(conversationId: 1, lastSeq: 10)
        tracker.setBaseline(conversationId: 2, lastSeq: 3)
        var given: [Int64: [Int64]] = [:]
        func event(_ c: Int64, _ seq: Int64) {
            if tracker.observe(conversationId: c, seq: seq) { given[c, default: []].append(seq) }
        }
        event(1, 11)
        event(1, 12)
        tracker.acknowledge(conversationId: 1, seq: 14)  // our own message; 13 is someone else's, on its way
        // The connection drops before 13 arrives: the resume asks for what follows 12 and from 3.
        #expect(tracker.resumePoints == [1: 12, 2: 3])
        // After the reconnect, live events are held by the server while the catch-up runs; a client can still see
        // a catch-up repeat: 13 (new), 14 (ours: not given), then live 15 and a repeated 15.
        event(1, 13)
        event(1, 14)
        event(1, 15)
        event(1, 15)
        event(2, 4)
        tracker.advance(conversationId: 1, to: 15)  // the sync reply
        #expect(given == [1: [11, 12, 13, 15], 2: [4]])
        #expect(tracker.duplicatesDropped == 2)
        #expect(tracker.resumePoints == [1: 15, 2: 4])
        #expect(tracker.pendingCount == 0)
        // A new session starts over.
        tracker.reset()
        #expect(tracker.resumePoints.isEmpty)
    }
}
