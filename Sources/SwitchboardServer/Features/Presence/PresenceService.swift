//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain

/// Presence and typing's rules (docs/protocol.md "Presence and typing"): which statuses a client may set, which
/// activities it may show, and the typing bucket. The effects are engines' work on their queues (`PresenceHub`,
/// the conversation's writer), handed on by the feature's handlers once these rules passed; no database work.
/// Called on the loops (cheap: a parse, one token bucket).
final class PresenceService: Sendable {
    /// `typing` per user: a burst of `typingBurst`, then `typingPerSecond` (`--typing-rate`).
    let typingLimiter: SharedRateLimiter<Int64>
    /// Typing updates a user may send at once (the burst), for the configuration group.
    let typingBurst: Double
    /// Typing updates per user per second after the burst, for the configuration group.
    let typingPerSecond: Double
    /// Monotonic nanoseconds for the typing bucket (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(typingBurst: Double, typingPerSecond: Double, clock: any EngineClock = SystemClock()) {
        self.typingBurst = typingBurst
        self.typingPerSecond = typingPerSecond
        typingLimiter = SharedRateLimiter(capacity: typingBurst, refillPerSecond: typingPerSecond)
        self.clock = clock
    }

    /// `presence.set`: the status a client may set (`online` or `away`; `offline` is the hub's to decide).
    func status(_ raw: String) throws(PresenceError) -> PresenceStatus {
        guard let status = PresenceStatus(rawValue: raw), status != .offline else { throw .invalidStatus }
        return status
    }

    /// `typing`: the activity to show (`typing` when absent, or `recording`), counted against the caller's
    /// typing bucket.
    func typing(_ caller: Caller, activity: String?) throws(PresenceError) -> String {
        let activity = activity ?? "typing"
        guard activity == "typing" || activity == "recording" else { throw .invalidActivity }
        let attempt = typingLimiter.attempt(caller.userId, now: clock.now(), sharedBy: caller.limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds { throw .typingLimited(retryAfterMilliseconds: retryAfter) }
        return activity
    }
}
