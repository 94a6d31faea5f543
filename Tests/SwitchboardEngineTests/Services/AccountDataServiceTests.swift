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

/// `AccountDataService` without sockets: the password check before a deletion, what the deletion's transaction
/// commits and who hears `user.deleted`, and the export's limits (the deletion job and the archive builder are
/// `AccountLifecycleTests`' subject).
@Suite("Account data service (the test database, a manual clock)")
struct AccountDataServiceTests {
    let clock = ManualClock()
    let password = "green teapot 7 lids"

    func identity() throws -> IdentityService {
        IdentityService(
            db: try EngineTestDatabase.shared.pool, hasher: cheapHasher, defaultCountryCode: "1", clock: clock)
    }

    func service(_ identity: IdentityService, exportsPerDay: Int = 3) throws -> AccountDataService {
        AccountDataService(db: try EngineTestDatabase.shared.pool, identity: identity, exportsPerDay: exportsPerDay)
    }

    /// Marks what the test left behind done, so that no server sharing the database works on it.
    func settle(_ userId: Int64) async throws {
        try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(
                cached: "UPDATE account_deletions SET finished_at = now() WHERE user_id = $1", [.int(userId)])
            try db.execute(cached: "UPDATE data_exports SET state = 'failed' WHERE user_id = $1", [.int(userId)])
        }
    }

    @Test func aDeletionNeedsThePasswordAndTellsFriendsAndPartners() async throws {
        let db = EngineTestDatabase.shared
        let identity = try identity()
        let accountData = try service(identity)
        let ann = try await identity.register(
            phone: servicePhone(), password: password, displayName: "Ann", device: "d", handle: nil, address: "del")
        let (bob, carol, zed) = (try await db.user("bob"), try await db.user("carol"), try await db.user("zed"))
        try await db.befriend(ann.userId, bob)
        _ = try await db.pool.withConnection { db in try MessageStore.directConversation(db, ann.userId, carol) }
        let me = Caller(userId: ann.userId, sessionId: ann.sessionId, address: "del")
        await #expect(throws: AccountDataError.password(.wrongPassword)) {
            _ = try await accountData.requestDeletion(me, password: "not it at all")
        }
        #expect(AccountDataError.password(.wrongPassword).wire == ServiceError(.invalidCredentials, "wrong password"))
        let (request, events) = try await accountData.requestDeletion(me, password: password)
        #expect(request.friendIds == [bob])
        #expect(request.contactIds == [bob, carol].sorted())
        #expect(request.sessionIds == [ann.sessionId])
        #expect(events.map(\.name) == ["user.deleted"])
        let told = try #require(events.first)
        #expect(Set(told.users) == [bob, carol] && !told.users.contains(zed))
        #expect((told.event as? AccountEvents.UserDeleted)?.userId == ann.userId)
        // Committed: the session is revoked, and the account has no password to check any more.
        await #expect(throws: IdentityError.invalidToken) {
            _ = try await identity.authenticate(token: ann.sessionToken)
        }
        await #expect(throws: AccountDataError.password(.wrongPassword)) {
            _ = try await accountData.requestDeletion(me, password: password)
        }
        try await settle(ann.userId)
    }

    @Test func exportsOneAtATimeAndSoManyADay() async throws {
        let db = EngineTestDatabase.shared
        let (ann, zed) = (try await db.user("ann"), try await db.user("zed"))
        let accountData = try service(try identity(), exportsPerDay: 2)
        let me = Caller(userId: ann)
        let first = try await accountData.startExport(me).export
        #expect(first.state == "building")
        await #expect(throws: AccountDataError.exportInProgress) { _ = try await accountData.startExport(me) }
        #expect(try await accountData.exports(of: ann).exports.map(\.exportId) == [first.exportId])
        #expect(try await accountData.exports(of: zed).exports.isEmpty)
        try await db.pool.withConnection { db in
            try db.execute(cached: "UPDATE data_exports SET state = 'ready' WHERE id = $1", [.int(first.exportId)])
        }
        let second = try await accountData.startExport(me).export
        try await db.pool.withConnection { db in
            try db.execute(cached: "UPDATE data_exports SET state = 'ready' WHERE id = $1", [.int(second.exportId)])
        }
        do {
            _ = try await accountData.startExport(me)
            Issue.record("a third export within a day was accepted")
        } catch {
            guard case .exportsPerDay(let perDay, let retryAfter) = error else { throw error }
            #expect(perDay == 2)
            #expect(retryAfter > 80_000_000 && retryAfter <= 86_400_000)
            #expect(error.wire.message == "at most 2 exports a day")
        }
        #expect(try await accountData.exports(of: ann).exports.map(\.exportId) == [second.exportId, first.exportId])
        await #expect(throws: AccountDataError.noSuchAccount) {
            _ = try await accountData.startExport(Caller(userId: -1))
        }
        try await settle(ann)
    }
}
