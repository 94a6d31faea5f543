//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import Testing

/// Issue 13, item 7: `register` (which answers `phone_taken`) and `contacts.match` tell who is registered, so
/// both are limited per client address and (contacts) per account.
@Suite("Registration and contact discovery limits", .serialized)
struct DiscoveryLimitsTests {
    @Test func registrationsPerAddressAreLimitedIncludingPhoneTaken() throws {
        let (server, port, database) = try startProtocolServer {
            $0.discoveryLimits = DiscoveryLimits()
            $0.discoveryLimits.registerBurstPerAddress = 3
            $0.discoveryLimits.registerIntervalPerAddress = 3600
        }
        defer { stop(server); database.close() }
        let taken = freshPhone()
        let first = try ProtocolClient(port: port)
        _ = try #require(ok(try first.call("register", ["phone": taken, "password": "ample meadow 31", "display_name": "Ann", "device": "d"])))
        // Probing for registered numbers spends the same budget as registering.
        let prober = try ProtocolClient(port: port)
        for _ in 0..<2 {
            #expect(errorCode(try prober.call("register", ["phone": taken, "password": "ample meadow 32", "display_name": "X", "device": "d"])) == "phone_taken")
        }
        let refused = try prober.call("register", ["phone": taken, "password": "ample meadow 33", "display_name": "X", "device": "d"])
        #expect(errorCode(refused) == "rate_limited")
        let retry = (refused["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0
        #expect(retry > 3_000_000 && retry <= 3_600_000)
        // A fresh number from the same address is refused as well: the limit is the address's, not the number's.
        #expect(errorCode(try prober.call("register", ["phone": freshPhone(), "password": "ample meadow 34", "display_name": "Y", "device": "d"])) == "rate_limited")
        // Logging in is not a registration.
        #expect(ok(try prober.call("login", ["phone": taken, "password": "ample meadow 31", "device": "d2"])) != nil)
    }

    @Test func contactLookupsArePricedPerNumberPerAccountAndAddress() throws {
        let (server, port, database) = try startProtocolServer {
            $0.discoveryLimits = DiscoveryLimits.unlimited
            $0.discoveryLimits.contactsBurstPerUser = 10
            $0.discoveryLimits.contactsIntervalPerUser = 3600
            $0.discoveryLimits.contactsBurstPerAddress = 16
            $0.discoveryLimits.contactsIntervalPerAddress = 3600
        }
        defer { stop(server); database.close() }
        func user(_ name: String) throws -> ProtocolClient {
            let c = try ProtocolClient(port: port)
            _ = try #require(ok(try c.call("register", ["phone": freshPhone(), "password": "ample meadow 31", "display_name": name, "device": "d"])))
            return c
        }
        let a = try user("A")
        let numbers = (0..<6).map { _ in freshPhone() }
        #expect(ok(try a.call("contacts.match", ["phones": numbers])) != nil)
        // 6 of 10 spent: 6 more do not fit, 4 do.
        let refused = try a.call("contacts.match", ["phones": numbers])
        #expect(errorCode(refused) == "rate_limited")
        #expect(((refused["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        #expect(ok(try a.call("contacts.match", ["phones": Array(numbers.prefix(4))])) != nil)
        #expect(errorCode(try a.call("contacts.match", ["phones": [numbers[0]]])) == "rate_limited")
        // Another account on the same address has its own 10, but the address's 16 are down to 6.
        let b = try user("B")
        #expect(ok(try b.call("contacts.match", ["phones": numbers])) != nil)
        #expect(errorCode(try b.call("contacts.match", ["phones": [numbers[0]]])) == "rate_limited")
        // A list over the per-request maximum is `too_many` and costs nothing.
        let c = try user("C")
        #expect(errorCode(try c.call("contacts.match", ["phones": (0..<501).map { _ in freshPhone() }])) == "too_many")
    }
}
