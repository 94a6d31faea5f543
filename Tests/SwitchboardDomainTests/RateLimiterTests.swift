//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardDomain

let second: UInt64 = 1_000_000_000

@Suite struct RateLimiterTests {
    @Test func burstRefillAndExactRetryAfter() {
        var limiter = RateLimiter<String>(capacity: 3, refillPerSecond: 1)
        for _ in 0..<3 { #expect(limiter.attempt("a", now: 0) == .allowed) }
        #expect(limiter.attempt("a", now: 0) == .limited(retryAfterNanoseconds: second))
        #expect(limiter.attempt("a", now: 400_000_000) == .limited(retryAfterNanoseconds: 600_000_000))
        #expect(limiter.attempt("a", now: second - 1) == .limited(retryAfterNanoseconds: 1))
        #expect(limiter.attempt("a", now: second) == .allowed)
        #expect(limiter.attempt("a", now: second) == .limited(retryAfterNanoseconds: second))
        #expect(limiter.attempt("b", now: second) == .allowed)  // keys are independent
    }

    @Test func slowRefillLikeLogin() {
        // 5 attempts, then one per 12 s.
        var limiter = RateLimiter<String>(capacity: 5, refillPerSecond: 1.0 / 12)
        let start = 1_000 * second
        for _ in 0..<5 { #expect(limiter.attempt("+15551234567", now: start) == .allowed) }
        #expect(limiter.attempt("+15551234567", now: start) == .limited(retryAfterNanoseconds: 12 * second))
        #expect(limiter.attempt("+15551234567", now: start + 6 * second) == .limited(retryAfterNanoseconds: 6 * second))
        #expect(limiter.attempt("+15551234567", now: start + 12 * second) == .allowed)
        #expect(
            limiter.attempt("+15551234567", now: start + 12 * second) == .limited(retryAfterNanoseconds: 12 * second))
    }

    @Test func idleTimeRefillsOnlyToCapacity() {
        var limiter = RateLimiter<Int>(capacity: 2, refillPerSecond: 10)
        #expect(limiter.attempt(1, now: 0) == .allowed)
        let later = 3_600 * second
        #expect(limiter.attempt(1, now: later) == .allowed)
        #expect(limiter.attempt(1, now: later) == .allowed)
        #expect(limiter.attempt(1, now: later) == .limited(retryAfterNanoseconds: 100_000_000))
    }

    @Test func refusedAttemptsDoNotCost() {
        var limiter = RateLimiter<Int>(capacity: 1, refillPerSecond: 1)
        #expect(limiter.attempt(1, now: 0) == .allowed)
        for t in stride(from: UInt64(0), to: second, by: 100_000_000) {
            #expect(limiter.attempt(1, now: t) == .limited(retryAfterNanoseconds: second - t))
        }
        #expect(limiter.attempt(1, now: second) == .allowed)
    }

    @Test func cost() {
        var limiter = RateLimiter<Int>(capacity: 10, refillPerSecond: 10)
        #expect(limiter.attempt(1, now: 0, cost: 8) == .allowed)
        #expect(limiter.attempt(1, now: 0, cost: 3) == .limited(retryAfterNanoseconds: 100_000_000))
        #expect(limiter.attempt(1, now: 0, cost: 2) == .allowed)
        #expect(limiter.attempt(1, now: 0, cost: 0.5) == .limited(retryAfterNanoseconds: 50_000_000))
    }

    @Test func retryAfterMilliseconds() {
        #expect(RateDecision.allowed.retryAfterMilliseconds == nil)
        #expect(RateDecision.limited(retryAfterNanoseconds: 1).retryAfterMilliseconds == 1)
        #expect(RateDecision.limited(retryAfterNanoseconds: 12_000_000_000).retryAfterMilliseconds == 12_000)
        #expect(RateDecision.limited(retryAfterNanoseconds: 12_000_000_001).retryAfterMilliseconds == 12_001)
    }

    @Test func leastRecentlyUsedKeyIsEvicted() {
        var limiter = RateLimiter<String>(capacity: 1, refillPerSecond: 1, maxKeys: 2)
        #expect(limiter.attempt("a", now: 0) == .allowed)
        #expect(limiter.attempt("b", now: 0) == .allowed)
        #expect(limiter.attempt("a", now: 0) != .allowed)  // a is now the most recent
        #expect(limiter.attempt("c", now: 0) == .allowed)  // evicts b
        #expect(limiter.count == 2)
        #expect(limiter.attempt("a", now: 0) != .allowed)  // a was kept
        #expect(limiter.attempt("b", now: 0) == .allowed)  // b was forgotten
    }

    @Test func memoryIsBoundedUnderAFloodOfKeys() {
        var limiter = RateLimiter<Int>(capacity: 3, refillPerSecond: 0.1, maxKeys: 1_000)
        for key in 0..<200_000 {
            _ = limiter.attempt(key, now: UInt64(key))
            _ = limiter.attempt(key % 7, now: UInt64(key))  // a few hot keys stay
        }
        #expect(limiter.count <= 1_000)
        #expect(limiter.attempt(3, now: 200_000) != .allowed)  // a hot key was never evicted
    }

    @Test func removeFullForgetsRefilledKeys() {
        var limiter = RateLimiter<Int>(capacity: 2, refillPerSecond: 1)
        for key in 0..<100 { _ = limiter.attempt(key, now: 0) }
        _ = limiter.attempt(0, now: 0)
        _ = limiter.attempt(0, now: 0)
        limiter.removeFull(now: second)  // key 0 still owes a token; the others are full
        #expect(limiter.count == 1)
        limiter.removeFull(now: 2 * second)
        #expect(limiter.count == 0)
        #expect(limiter.attempt(5, now: 2 * second) == .allowed)
    }

    @Test func sharedLimiterUnderConcurrency() async {
        let shared = SharedRateLimiter<String>(capacity: 100, refillPerSecond: 1)
        let allowed = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var n = 0
                    for _ in 0..<50 where shared.attempt("k", now: 0) == .allowed { n += 1 }
                    return n
                }
            }
            return await group.reduce(0, +)
        }
        #expect(allowed == 100)  // exactly the burst, no lost updates
        #expect(shared.count == 1)
        shared.removeFull(now: 200 * second)
        #expect(shared.count == 0)
    }
}
