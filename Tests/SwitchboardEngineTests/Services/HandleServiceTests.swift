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
import SwitchboardProtocol
import SwitchboardStore
import Testing

@testable import SwitchboardServer

/// `HandleService` without sockets: the handle rules before the database, uniqueness, and who hears the new handle.
@Suite("Handle service (the test database)")
struct HandleServiceTests {
    @Test func aHandleIsCheckedTakenOnceAndToldToFriendsNotStrangers() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        try await db.befriend(ann, bob)
        let handles = HandleService(db: try db.pool)
        await #expect(throws: HandleError.invalid) {
            _ = try await handles.setHandle(Caller(userId: ann), handle: "a!")
        }
        await #expect(throws: HandleError.reserved) {
            _ = try await handles.setHandle(Caller(userId: ann), handle: "Admin")
        }
        let name = "ann\(ann)"
        let (set, events) = try await handles.setHandle(Caller(userId: ann), handle: name)
        #expect(set.profile.handle == name)
        #expect(events.map(\.name) == ["profile.updated"])
        #expect(Set(try #require(events.first).users) == [ann, bob])
        let told = try #require(events.first?.event as? ServerEvent.ProfileUpdated)
        #expect(told.profile == UserProfile(userId: ann, displayName: "ann", handle: name))
        // Taken, whatever its case; free for its owner.
        await #expect(throws: HandleError.taken) {
            _ = try await handles.setHandle(Caller(userId: zed), handle: name.uppercased())
        }
        #expect(try await handles.check(Caller(userId: zed), handle: name).reason == "taken")
        #expect(try await handles.check(Caller(userId: ann), handle: name).available)
        #expect(try await handles.check(Caller(userId: zed), handle: "no").reason == "invalid")
        #expect(try await handles.check(Caller(userId: zed), handle: "support").reason == "reserved")
    }
}
