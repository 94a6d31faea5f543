//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Limits of `serve` on registration and `contacts.match` (the ways to learn which numbers are registered).
struct DiscoveryOptions: ParsableArguments {
    @Option(help: "Registrations per client address before the limit. [env: SWITCHBOARD_REGISTER_BURST_PER_ADDRESS]")
    var registerBurstPerAddress: Int = envValue("SWITCHBOARD_REGISTER_BURST_PER_ADDRESS", as: Int.self) ?? 10

    @Option(
        help: "Seconds per further registration per client address. [env: SWITCHBOARD_REGISTER_INTERVAL_PER_ADDRESS]")
    var registerIntervalPerAddress: Double =
        envValue("SWITCHBOARD_REGISTER_INTERVAL_PER_ADDRESS", as: Double.self) ?? 60

    @Option(
        help:
            """
            Phone numbers contacts.match looks up per account before the limit. [env: \
            SWITCHBOARD_CONTACTS_BURST_PER_USER]
            """
    )
    var contactsBurstPerUser: Int = envValue("SWITCHBOARD_CONTACTS_BURST_PER_USER", as: Int.self) ?? 1000

    @Option(help: "Seconds per further phone number per account. [env: SWITCHBOARD_CONTACTS_INTERVAL_PER_USER]")
    var contactsIntervalPerUser: Double = envValue("SWITCHBOARD_CONTACTS_INTERVAL_PER_USER", as: Double.self) ?? 10

    @Option(
        help:
            "Phone numbers looked up per client address before the limit. [env: SWITCHBOARD_CONTACTS_BURST_PER_ADDRESS]"
    )
    var contactsBurstPerAddress: Int = envValue("SWITCHBOARD_CONTACTS_BURST_PER_ADDRESS", as: Int.self) ?? 5000

    @Option(
        help: "Seconds per further phone number per client address. [env: SWITCHBOARD_CONTACTS_INTERVAL_PER_ADDRESS]")
    var contactsIntervalPerAddress: Double = envValue("SWITCHBOARD_CONTACTS_INTERVAL_PER_ADDRESS", as: Double.self) ?? 2

    func validate() throws {
        guard registerBurstPerAddress >= 1, contactsBurstPerUser >= 1, contactsBurstPerAddress >= 1,
            registerIntervalPerAddress > 0, contactsIntervalPerUser > 0, contactsIntervalPerAddress > 0
        else {
            throw ValidationError("registration and contact limits: bursts at least 1, intervals above 0")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.discoveryLimits.registerBurstPerAddress = registerBurstPerAddress
        c.discoveryLimits.registerIntervalPerAddress = registerIntervalPerAddress
        c.discoveryLimits.contactsBurstPerUser = contactsBurstPerUser
        c.discoveryLimits.contactsIntervalPerUser = contactsIntervalPerUser
        c.discoveryLimits.contactsBurstPerAddress = contactsBurstPerAddress
        c.discoveryLimits.contactsIntervalPerAddress = contactsIntervalPerAddress
    }
}
