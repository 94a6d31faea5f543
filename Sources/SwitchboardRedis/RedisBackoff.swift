//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Exponential reconnect delays with jitter (pure; the random draw is passed in).
public struct RedisBackoff: Sendable, Equatable {
    /// The first delay.
    public var minDelay: Duration
    /// The largest delay.
    public var maxDelay: Duration
    /// The share of each delay drawn at random, 0 to 1.
    public var jitter: Double

    public init(minDelay: Duration, maxDelay: Duration, jitter: Double) {
        self.minDelay = minDelay
        self.maxDelay = maxDelay
        self.jitter = jitter
    }

    init(_ configuration: RedisConfiguration) {
        self.init(
            minDelay: configuration.reconnectMinDelay, maxDelay: configuration.reconnectMaxDelay,
            jitter: configuration.reconnectJitter)
    }

    /// The delay before reconnect attempt `attempt` (0 for the first after a loss).
    /// - Parameter random: a number in [0, 1).
    public func delay(attempt: Int, random: Double) -> Duration {
        let base = Double(minDelay.components.seconds) + Double(minDelay.components.attoseconds) / 1e18
        let cap = Double(maxDelay.components.seconds) + Double(maxDelay.components.attoseconds) / 1e18
        let exponential = min(cap, base * pow(2, Double(min(attempt, 40))))
        let seconds = exponential * (1 - jitter * min(max(random, 0), 1))
        return .nanoseconds(Int64(seconds * 1e9))
    }
}
