//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The delays between reconnect attempts: exponential growth up to a ceiling, each with a random share
/// ("equal jitter"). A value type without clocks or I/O, so it is tested by calling it.
public struct ReconnectBackoff: Sendable {
    /// The policy it follows.
    public let policy: ReconnectPolicy
    /// Attempts made since the last success.
    public private(set) var attempts = 0

    public init(policy: ReconnectPolicy) {
        self.policy = policy
    }

    /// What to do after a failed (or dropped) connection.
    public enum Decision: Sendable, Equatable {
        /// Try again after this many seconds; `attempt` counts from 1.
        case retry(after: Double, attempt: Int)
        /// Reconnecting is disabled or the attempts are exhausted.
        case giveUp
    }

    /// The next delay: `initialDelay * multiplier^(attempt-1)`, capped at `maximumDelay`, of which the share
    /// `jitter` is random.
    /// - Parameter random: a number in 0..<1 (injected for tests).
    public mutating func next(random: Double) -> Decision {
        guard policy.enabled else { return .giveUp }
        if let maximum = policy.maximumAttempts, attempts >= maximum { return .giveUp }
        attempts += 1
        var delay = policy.initialDelay
        var i = 1
        while i < attempts && delay < policy.maximumDelay {
            delay *= max(1, policy.multiplier)
            i += 1
        }
        delay = min(delay, policy.maximumDelay)
        let jitter = min(max(policy.jitter, 0), 1)
        let r = min(max(random, 0), 1)
        return .retry(after: delay * (1 - jitter) + delay * jitter * r, attempt: attempts)
    }

    /// A connection succeeded (it authenticated, or opened when there is no session): start over.
    public mutating func reset() {
        attempts = 0
    }
}
