//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A token bucket per key (burst `capacity`, then `refillPerSecond`) with an injected clock and bounded
/// memory.
///
/// Implemented as the generic cell rate algorithm: each key keeps one "theoretical arrival time" in
/// integer nanoseconds, so retry-after values are exact. Beyond `maxKeys` the least recently used key
/// is evicted: usually its bucket is full again and forgetting it changes nothing; at worst (a flood of
/// distinct keys) a partly drained bucket is forgotten, but memory stays bounded. `removeFull(now:)`
/// drops every key whose bucket is full again (call it from a periodic sweep). Each `attempt` costs
/// O(1) amortised.
///
/// Not thread-safe: the owner confines it to one queue (`// protected by <queue>`) or a lock.
public struct RateLimiter<Key: Hashable> {
    /// Tokens in a full bucket (the burst).
    public let capacity: Double
    /// Tokens added per second.
    public let refillPerSecond: Double
    /// Most keys remembered.
    public let maxKeys: Int
    /// Nanoseconds per token.
    private let interval: UInt64
    /// Nanoseconds of debt a full burst allows (`capacity * interval`).
    private let burst: UInt64

    private struct Entry {
        /// When the bucket is full again (theoretical arrival time), in clock nanoseconds.
        var fullAt: UInt64
        /// Matches the newest `order` record of this key; older records are stale.
        var stamp: UInt64
    }

    private var entries: [Key: Entry] = [:]
    /// Keys in order of last use (oldest first) with the stamp of that use; stale records are skipped.
    private var order: [(key: Key, stamp: UInt64)] = []
    /// Index of the oldest live-or-stale record in `order`.
    private var head = 0
    private var nextStamp: UInt64 = 0

    /// - Parameters:
    ///   - capacity: the burst (tokens in a full bucket), at least 1.
    ///   - refillPerSecond: tokens added per second (> 0).
    ///   - maxKeys: keys remembered at most (at least 1).
    public init(capacity: Double, refillPerSecond: Double, maxKeys: Int = 100_000) {
        precondition(capacity >= 1 && refillPerSecond > 0 && maxKeys >= 1, "invalid rate limiter configuration")
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        self.maxKeys = maxKeys
        let interval = max(1, min(1e18, (1e9 / refillPerSecond).rounded()))
        self.interval = UInt64(interval)
        self.burst = UInt64(min(1e18, (capacity * interval).rounded()))
    }

    /// Number of keys held.
    public var count: Int { entries.count }

    /// Takes `cost` tokens (default 1) for `key` if the bucket has them.
    /// - Parameters:
    ///   - key: whose bucket (a phone number, an address, a user id).
    ///   - now: the current time in nanoseconds of a monotonic clock (the same clock on every call).
    ///   - cost: tokens this attempt takes (at most `capacity`).
    public mutating func attempt(_ key: Key, now: UInt64, cost: Double = 1) -> RateDecision {
        let increment = UInt64(min(Double(burst), max(0, (cost * Double(interval)).rounded())))
        let fullAt = max(entries[key]?.fullAt ?? now, now)
        let debt = fullAt - now + increment
        guard debt <= burst else {
            touch(key, fullAt: fullAt, now: now)
            return .limited(retryAfterNanoseconds: debt - burst)
        }
        touch(key, fullAt: fullAt + increment, now: now)
        return .allowed
    }

    /// Forgets every key whose bucket is full again at `now` (they behave exactly as unknown keys).
    public mutating func removeFull(now: UInt64) {
        entries = entries.filter { $0.value.fullAt > now }
        compact()
    }

    private mutating func touch(_ key: Key, fullAt: UInt64, now: UInt64) {
        nextStamp &+= 1
        entries[key] = Entry(fullAt: fullAt, stamp: nextStamp)
        order.append((key, nextStamp))
        while entries.count > maxKeys, head < order.count {
            let oldest = order[head]
            head += 1
            if let entry = entries[oldest.key], entry.stamp == oldest.stamp, oldest.key != key {
                entries[oldest.key] = nil
            }
        }
        // Keep `order` within a constant factor of the live keys.
        if order.count > 64 && order.count - head > 2 * entries.count + 64 || head > order.count / 2 && head > 64 {
            compact()
        }
    }

    /// Drops consumed and stale records from `order`.
    private mutating func compact() {
        let entries = self.entries
        order = order[head...].filter { entries[$0.key]?.stamp == $0.stamp }
        head = 0
    }
}
