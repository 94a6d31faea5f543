//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Synchronization

/// A `RateLimiter` behind a mutex, for limits shared by several queues (login attempts per phone number
/// arrive on every loop). Per-connection limits (typing, signalling) are better kept in a plain
/// `RateLimiter` owned by the connection's loop queue.
public final class SharedRateLimiter<Key: Hashable & Sendable>: Sendable {
    private let limiter: Mutex<RateLimiter<Key>>
    /// The burst.
    public let capacity: Double

    /// - Parameters: as `RateLimiter.init(capacity:refillPerSecond:maxKeys:)`.
    public init(capacity: Double, refillPerSecond: Double, maxKeys: Int = 100_000) {
        self.capacity = capacity
        limiter = Mutex(RateLimiter(capacity: capacity, refillPerSecond: refillPerSecond, maxKeys: maxKeys))
    }

    /// An attempt by a user whose limit is shared by `nodes` cluster nodes: each charges `nodes` per attempt (at
    /// most the burst), so that the nodes together allow the user's rate, not `nodes` times it, without asking
    /// each other (`docs/cluster.md`, Limits).
    public func attempt(_ key: Key, now: UInt64, sharedBy nodes: Int) -> RateDecision {
        attempt(key, now: now, cost: min(Double(max(1, nodes)), capacity))
    }

    /// Number of keys held.
    public var count: Int { limiter.withLock { $0.count } }

    /// As `RateLimiter.attempt(_:now:cost:)`, under the lock.
    public func attempt(_ key: Key, now: UInt64, cost: Double = 1) -> RateDecision {
        limiter.withLock { $0.attempt(key, now: now, cost: cost) }
    }

    /// As `RateLimiter.removeFull(now:)`, under the lock.
    public func removeFull(now: UInt64) {
        limiter.withLock { $0.removeFull(now: now) }
    }
}
