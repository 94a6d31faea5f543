//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain

/// Limits on the two ways of learning whether a phone number is registered: `register` (which answers
/// `phone_taken`) and `contacts.match`. Token buckets: a burst, then one more per interval.
public struct DiscoveryLimits: Sendable {
    /// Registrations (successful or not) per client address before the limit.
    public var registerBurstPerAddress = 10
    /// Seconds per further registration per client address.
    public var registerIntervalPerAddress = 60.0
    /// Phone numbers looked up by `contacts.match` per account before the limit.
    public var contactsBurstPerUser = 1000
    /// Seconds per further phone number per account.
    public var contactsIntervalPerUser = 10.0
    /// Phone numbers looked up per client address (all its accounts together) before the limit.
    public var contactsBurstPerAddress = 5000
    /// Seconds per further phone number per client address.
    public var contactsIntervalPerAddress = 2.0

    public init() {}

    /// No practical limit (tests and load generators that register thousands of users from one address).
    public static var unlimited: DiscoveryLimits {
        var l = DiscoveryLimits()
        l.registerBurstPerAddress = 1_000_000
        l.registerIntervalPerAddress = 0.000_001
        l.contactsBurstPerUser = 1_000_000
        l.contactsIntervalPerUser = 0.000_001
        l.contactsBurstPerAddress = 1_000_000
        l.contactsIntervalPerAddress = 0.000_001
        return l
    }
}

/// Applies `DiscoveryLimits`. Thread-safe: each bucket set is a `SharedRateLimiter` (a mutex); called from
/// request tasks of every loop.
final class DiscoveryLimiter: Sendable {
    private let registerByAddress: SharedRateLimiter<String>
    private let contactsByUser: SharedRateLimiter<Int64>
    private let contactsByAddress: SharedRateLimiter<String>
    private let contactsUserCapacity: Double
    private let contactsAddressCapacity: Double

    init(_ limits: DiscoveryLimits) {
        func perSecond(_ interval: Double) -> Double { 1 / max(interval, 0.000_001) }
        registerByAddress = SharedRateLimiter(
            capacity: Double(max(1, limits.registerBurstPerAddress)), refillPerSecond: perSecond(limits.registerIntervalPerAddress))
        contactsUserCapacity = Double(max(1, limits.contactsBurstPerUser))
        contactsAddressCapacity = Double(max(1, limits.contactsBurstPerAddress))
        contactsByUser = SharedRateLimiter(capacity: contactsUserCapacity, refillPerSecond: perSecond(limits.contactsIntervalPerUser))
        contactsByAddress = SharedRateLimiter(
            capacity: contactsAddressCapacity, refillPerSecond: perSecond(limits.contactsIntervalPerAddress))
    }

    /// nil when a registration from `address` may proceed, else the `rate_limited` error to answer.
    func register(address: String, now: UInt64) -> ServiceError? {
        Self.refusal(registerByAddress.attempt(address, now: now), "too many registrations from your address; retry later")
    }

    /// nil when `count` phone numbers may be looked up, else the `rate_limited` error to answer. A request
    /// costs one token per number (at least one).
    func contacts(user: Int64, address: String, count: Int, now: UInt64) -> ServiceError? {
        let cost = Double(max(1, count))
        if let refused = Self.refusal(
            contactsByUser.attempt(user, now: now, cost: min(cost, contactsUserCapacity)), "too many contact look-ups; retry later")
        {
            return refused
        }
        return Self.refusal(
            contactsByAddress.attempt(address, now: now, cost: min(cost, contactsAddressCapacity)),
            "too many contact look-ups from your address; retry later")
    }

    private static func refusal(_ decision: RateDecision, _ message: String) -> ServiceError? {
        guard let ms = decision.retryAfterMilliseconds else { return nil }
        return ServiceError(.rateLimited, message, extra: ["retry_after_ms": ms])
    }
}
