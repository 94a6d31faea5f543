//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain

/// The limits of `contacts.match` (`DiscoveryLimits`' `contacts-*`): one token per phone number looked up (at
/// least one per request), per account and per client address (all its accounts together). With `register`'s
/// limit per address (`IdentityService.registrations`) these bound how fast anyone learns which numbers are
/// registered. Thread-safe: each bucket set is a `SharedRateLimiter` (a mutex).
final class ContactLookupLimiter: Sendable {
    private let byUser: SharedRateLimiter<Int64>
    private let byAddress: SharedRateLimiter<String>
    /// The limits, for the configuration group.
    let limits: DiscoveryLimits

    init(_ limits: DiscoveryLimits) {
        func perSecond(_ interval: Double) -> Double { 1 / max(interval, 0.000_001) }
        self.limits = limits
        byUser = SharedRateLimiter(
            capacity: Double(max(1, limits.contactsBurstPerUser)),
            refillPerSecond: perSecond(limits.contactsIntervalPerUser))
        byAddress = SharedRateLimiter(
            capacity: Double(max(1, limits.contactsBurstPerAddress)),
            refillPerSecond: perSecond(limits.contactsIntervalPerAddress))
    }

    /// Takes `count` tokens (at least one, at most a bucket's burst) from the user's bucket, then from the
    /// address's; the refusal otherwise (the address's bucket is not charged when the user's refuses).
    func attempt(user: Int64, address: String, count: Int, now: UInt64) throws(FriendError) {
        let cost = Double(max(1, count))
        if let retryAfter = byUser.attempt(user, now: now, cost: min(cost, byUser.capacity)).retryAfterMilliseconds {
            throw .contactLookupsLimited(retryAfterMilliseconds: retryAfter)
        }
        if let retryAfter = byAddress.attempt(address, now: now, cost: min(cost, byAddress.capacity))
            .retryAfterMilliseconds
        {
            throw .addressContactLookupsLimited(retryAfterMilliseconds: retryAfter)
        }
    }
}
