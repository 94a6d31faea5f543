//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import Testing

@testable import SwitchboardServer

/// `PresenceHub` driven through a fake outbox and a manual clock.
@Suite struct PresenceHubTests {
    struct Rig {
        let registry = SessionRegistry()
        let outbox = FakeOutbox()
        let clock = ManualClock()
        let presence: PresenceHub
        let a: Int64
        let b: Int64

        init(grace: Double) async throws {
            presence = PresenceHub(
                registry: registry, outbox: outbox, clock: clock, pool: try EngineTestDatabase.shared.pool,
                grace: grace,
                metrics: ServerMetrics(loopCount: 1), logger: testLogger())
            a = try await EngineTestDatabase.shared.user("Ann")
            b = try await EngineTestDatabase.shared.user("Bob")
            try await EngineTestDatabase.shared.befriend(a, b)
        }

        func connect(_ user: Int64) -> Device {
            let d = device(user: user, session: newSession())
            registry.add(d)
            presence.deviceConnected(d)
            return d
        }

        func disconnect(_ d: Device) {
            registry.remove(d.connection, userId: d.userId)
            presence.deviceDisconnected(d)
        }

        /// The `presence` events about `user` delivered to a connection.
        func presenceOf(_ user: Int64, to d: Device) -> [[String: Any]] {
            outbox.events("presence", to: d.connection).filter { ($0["user_id"] as? NSNumber)?.int64Value == user }
        }
    }

    @Test func friendsSeeEachOtherAndAnOfflineUserAfterTheGrace() async throws {
        let rig = try await Rig(grace: 5)
        let ann = rig.connect(rig.a)
        #expect(await rig.outbox.wait { !rig.outbox.events("presence.snapshot", to: ann.connection).isEmpty })
        let first = try #require(
            rig.outbox.events("presence.snapshot", to: ann.connection).first?["presence"] as? [[String: Any]])
        #expect(first.count == 1)
        #expect(first.first?["status"] as? String == "offline")

        let bob = rig.connect(rig.b)
        // Bob's snapshot shows Ann online; Ann is told Bob came online.
        #expect(await rig.outbox.wait { !rig.outbox.events("presence.snapshot", to: bob.connection).isEmpty })
        let snapshot = try #require(
            rig.outbox.events("presence.snapshot", to: bob.connection).first?["presence"] as? [[String: Any]])
        #expect(snapshot.first?["status"] as? String == "online")
        #expect(await rig.outbox.wait { rig.presenceOf(rig.b, to: ann).last?["status"] as? String == "online" })

        // Bob leaves: within the grace he stays available...
        rig.disconnect(bob)
        await settle(rig.presence.queue)
        rig.clock.advance(by: 4.9)
        await settle(rig.presence.queue)
        #expect(rig.presenceOf(rig.b, to: ann).last?["status"] as? String == "online")
        // ...after it Ann learns he is offline, with his last-seen time.
        rig.clock.advance(by: 0.2)
        #expect(await rig.outbox.wait { rig.presenceOf(rig.b, to: ann).last?["status"] as? String == "offline" })
        #expect(rig.presenceOf(rig.b, to: ann).last?["last_seen"] is String)
        // Presence travels as ephemeral items keyed per user (conflated on slow connections).
        let sources = rig.outbox.items(to: ann.connection).compactMap {
            if case .ephemeral(_, let s) = $0 { s } else { nil }
        }
        #expect(Set(sources) == ["p:\(rig.b)"])
    }

    @Test func aReconnectWithinTheGraceIsNotPublished() async throws {
        let rig = try await Rig(grace: 5)
        let ann = rig.connect(rig.a)
        let bob = rig.connect(rig.b)
        #expect(await rig.outbox.wait { rig.presenceOf(rig.b, to: ann).last?["status"] as? String == "online" })
        let before = rig.presenceOf(rig.b, to: ann).count
        rig.disconnect(bob)
        await settle(rig.presence.queue)
        rig.clock.advance(by: 2)
        let bobAgain = rig.connect(rig.b)
        #expect(await rig.outbox.wait { !rig.outbox.events("presence.snapshot", to: bobAgain.connection).isEmpty })
        rig.clock.advance(by: 10)
        await settle(rig.presence.queue)
        #expect(rig.presenceOf(rig.b, to: ann).count == before)
    }

    @Test func awayIsPublishedAndStrangersHearNothing() async throws {
        let rig = try await Rig(grace: 5)
        let stranger = try await EngineTestDatabase.shared.user("Cy")
        let ann = rig.connect(rig.a)
        let cy = rig.connect(stranger)
        let bob = rig.connect(rig.b)
        #expect(await rig.outbox.wait { rig.presenceOf(rig.b, to: ann).last?["status"] as? String == "online" })
        rig.presence.set(bob, status: .away)
        #expect(await rig.outbox.wait { rig.presenceOf(rig.b, to: ann).last?["status"] as? String == "away" })
        await settle(rig.presence.queue)
        #expect(rig.outbox.events("presence", to: cy.connection).isEmpty)
    }
}
