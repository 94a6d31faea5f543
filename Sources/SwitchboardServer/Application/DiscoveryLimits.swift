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
/// `phone_taken`) and `contacts.match`. Token buckets: a burst, then one more per interval. Applied by the features:
/// `IdentityService.registrations` and the friends feature's `ContactLookupLimiter`.
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
