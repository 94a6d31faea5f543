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
        _ = try #require(
            ok(
                try first.call(
                    "register", ["phone": taken, "password": "ample meadow 31", "display_name": "Ann", "device": "d"])))
        // Probing for registered numbers spends the same budget as registering.
        let prober = try ProtocolClient(port: port)
        for _ in 0..<2 {
            #expect(
                errorCode(
                    try prober.call(
                        "register", ["phone": taken, "password": "ample meadow 32", "display_name": "X", "device": "d"])
                ) == "phone_taken")
        }
        let refused = try prober.call(
            "register", ["phone": taken, "password": "ample meadow 33", "display_name": "X", "device": "d"])
        #expect(errorCode(refused) == "rate_limited")
        let retry = (refused["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0
        #expect(retry > 3_000_000 && retry <= 3_600_000)
        // A fresh number from the same address is refused as well: the limit is the address's, not the number's.
        #expect(
            errorCode(
                try prober.call(
                    "register",
                    ["phone": freshPhone(), "password": "ample meadow 34", "display_name": "Y", "device": "d"]))
                == "rate_limited")
        // Logging in is not a registration.
        #expect(ok(try prober.call("login", ["phone": taken, "password": "ample meadow 31", "device": "d2"])) != nil)
    }

    /// Behind a trusted load balancer the limit is the forwarded client's; a forwarded-for from anyone else, or
    /// the part of the header left of the nearest untrusted hop, is not believed.
    @Test func behindATrustedProxyTheForwardedAddressIsLimited() throws {
        func register(_ port: Int, forwardedFor: String?) throws -> String? {
            let header = forwardedFor.map { "X-Forwarded-For: \($0)\r\n" } ?? ""
            let c = try ProtocolClient(port: port, extraHeaders: header)
            let reply = try c.call(
                "register", ["phone": freshPhone(), "password": "ample meadow 31", "display_name": "P", "device": "d"])
            return errorCode(reply) ?? "ok"
        }
        let (server, port, database) = try startProtocolServer {
            $0.discoveryLimits = DiscoveryLimits()
            $0.discoveryLimits.registerBurstPerAddress = 2
            $0.discoveryLimits.registerIntervalPerAddress = 3600
            $0.trustedProxies = try! TrustedProxies(["127.0.0.0/8", "10.9.0.0/16"])
        }
        defer { stop(server); database.close() }
        // Two clients behind the proxy, each with its own budget of two.
        #expect(try register(port, forwardedFor: "198.51.100.7") == "ok")
        #expect(try register(port, forwardedFor: "198.51.100.7") == "ok")
        #expect(try register(port, forwardedFor: "198.51.100.7") == "rate_limited")
        #expect(try register(port, forwardedFor: "203.0.113.9, 10.9.1.1") == "ok")
        // A client cannot choose its address by writing the header itself: only the nearest untrusted hop counts
        // (here 198.51.100.7 again, whatever it claimed to the left).
        #expect(try register(port, forwardedFor: "203.0.113.9, 198.51.100.7") == "rate_limited")
        #expect(try register(port, forwardedFor: "203.0.113.9") == "ok")
        #expect(try register(port, forwardedFor: "[203.0.113.9]:4431") == "rate_limited")

        // Without trusted proxies the header is ignored: every client here is 127.0.0.1.
        let (plain, plainPort, plainDatabase) = try startProtocolServer {
            $0.discoveryLimits = DiscoveryLimits()
            $0.discoveryLimits.registerBurstPerAddress = 1
            $0.discoveryLimits.registerIntervalPerAddress = 3600
        }
        defer { stop(plain); plainDatabase.close() }
        #expect(try register(plainPort, forwardedFor: "198.51.100.1") == "ok")
        #expect(try register(plainPort, forwardedFor: "198.51.100.2") == "rate_limited")
    }

    @Test func trustedProxyEntriesAndAddresses() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", " ::1 ", "fd00::/8", "192.0.2.5"])
        #expect(proxies.contains("10.200.3.4") && proxies.contains("192.0.2.5") && !proxies.contains("192.0.2.6"))
        #expect(
            proxies.contains("::1") && proxies.contains("[::1]") && proxies.contains("fd12::3")
                && !proxies.contains("fe80::1"))
        #expect(proxies.contains("::ffff:10.1.2.3"))
        #expect(!proxies.contains("not an address") && !proxies.contains(""))
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["1.2.3.4, 10.0.0.9"]) == "1.2.3.4")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["5.6.7.8", "1.2.3.4"]) == "1.2.3.4")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["garbage, 1.2.3.4"]) == "1.2.3.4")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["1.2.3.4, garbage"]) == "10.0.0.1")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["10.0.0.7"]) == "10.0.0.7")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: ["::ffff:1.2.3.4"]) == "1.2.3.4")
        #expect(proxies.clientAddress(peer: "8.8.8.8", forwardedFor: ["1.2.3.4"]) == "8.8.8.8")
        #expect(proxies.clientAddress(peer: "10.0.0.1", forwardedFor: []) == "10.0.0.1")
        for bad in ["10.0.0.0/33", "::/129", "1.2.3", "host.example", "1.2.3.4/x", "fe80::1%eth0"] {
            #expect(throws: TrustedProxies.InvalidEntry.self) { try TrustedProxies([bad]) }
        }
        #expect(TrustedProxies.stripPort("1.2.3.4:80") == "1.2.3.4" && TrustedProxies.stripPort("[::1]:80") == "::1")
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
            _ = try #require(
                ok(
                    try c.call(
                        "register",
                        ["phone": freshPhone(), "password": "ample meadow 31", "display_name": name, "device": "d"])))
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
