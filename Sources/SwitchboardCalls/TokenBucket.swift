//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A token bucket on the injected monotonic clock.
struct TokenBucket: Sendable, Equatable {
    /// Tokens available at `updatedAt`.
    private(set) var tokens: Double
    /// The time of the last refill.
    private(set) var updatedAt: UInt64

    /// A full bucket.
    init(burst: Int, now: UInt64) {
        self.tokens = Double(burst)
        self.updatedAt = now
    }

    /// Takes one token.
    /// - Returns: nil if a token was taken, or the nanoseconds until one will be available.
    mutating func take(now: UInt64, ratePerSecond: Double, burst: Int) -> UInt64? {
        if now > self.updatedAt {
            let refill = Double(now - self.updatedAt) * ratePerSecond / 1e9
            self.tokens = min(Double(burst), self.tokens + refill)
            self.updatedAt = now
        }
        if self.tokens >= 1 {
            self.tokens -= 1
            return nil
        }
        guard ratePerSecond > 0 else { return .max }
        let wait = ((1 - self.tokens) * 1e9 / ratePerSecond).rounded(.up)
        return wait >= Double(UInt64.max) ? .max : max(1, UInt64(wait))
    }
}
