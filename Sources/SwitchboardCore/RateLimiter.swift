//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// What a rate limiter decided.
public enum RateDecision: Equatable, Sendable {
    case allowed
    /// Retry after this many nanoseconds.
    case limited(retryAfterNanoseconds: UInt64)
}

/// A token bucket per key with an injected clock (monotonic nanoseconds) and bounded memory. Not
/// thread-safe: the owner confines it to one queue or a lock.
public struct RateLimiter<Key: Hashable> {
    public let capacity: Double
    public let refillPerSecond: Double
    public let maxKeys: Int
    private var buckets: [Key: (tokens: Double, at: UInt64)] = [:]

    public init(capacity: Double, refillPerSecond: Double, maxKeys: Int = 100_000) {
        self.capacity = capacity
        self.refillPerSecond = refillPerSecond
        self.maxKeys = maxKeys
    }

    /// Number of keys held.
    public var count: Int { buckets.count }

    /// Takes one token for `key` if there is one.
    public mutating func attempt(_ key: Key, now: UInt64) -> RateDecision {
        var bucket = buckets[key] ?? (capacity, now)
        let elapsed = Double(now &- bucket.at) / 1e9
        bucket.tokens = min(capacity, bucket.tokens + elapsed * refillPerSecond)
        bucket.at = now
        if bucket.tokens >= 1 {
            bucket.tokens -= 1
            store(key, bucket, now: now)
            return .allowed
        }
        store(key, bucket, now: now)
        let wait = (1 - bucket.tokens) / refillPerSecond
        return .limited(retryAfterNanoseconds: UInt64((wait * 1e9).rounded(.up)))
    }

    private mutating func store(_ key: Key, _ bucket: (tokens: Double, at: UInt64), now: UInt64) {
        buckets[key] = bucket
        guard buckets.count > maxKeys else { return }
        // Full buckets carry no information: drop them first; then the oldest.
        let full = buckets.filter { min(capacity, $0.value.tokens + Double(now &- $0.value.at) / 1e9 * refillPerSecond) >= capacity }
        for k in full.keys where k != key { buckets[k] = nil }
        while buckets.count > maxKeys, let oldest = buckets.filter({ $0.key != key }).min(by: { $0.value.at < $1.value.at }) {
            buckets[oldest.key] = nil
        }
    }
}
