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

/// `FriendService` without sockets: requests and friendships, who hears which `friend.*` event, the lists, and
/// `contacts.match` with its buckets on a manual clock.
@Suite("Friend service (the test database, a manual clock)")
struct FriendServiceTests {
    let clock = ManualClock()

    /// A service whose contact look-ups allow 3 numbers per account then one every 10 s, and 4 per address.
    func service(maxContacts: Int = 5) throws -> FriendService {
        var limits = DiscoveryLimits()
        limits.contactsBurstPerUser = 3
        limits.contactsIntervalPerUser = 10
        limits.contactsBurstPerAddress = 4
        limits.contactsIntervalPerAddress = 10
        return FriendService(
            db: try EngineTestDatabase.shared.pool, defaultCountryCode: "1", maxContactsPerMatch: maxContacts,
            limits: limits, clock: clock)
    }

    /// The phone number of a user made by `EngineTestDatabase.user`.
    func phone(of user: Int64) async throws -> String {
        try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(cached: "SELECT phone FROM users WHERE id = $1", [.int(user)]).decodeFirst(String.self) ?? ""
        }
    }

    @Test func aRequestIsToldToBothAndAcceptingMakesFriends() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        let friends = try service()
        let (sent, events) = try await friends.request(Caller(userId: ann), phone: nil, userId: bob)
        let request = try #require(sent.request)
        #expect(sent.friend == nil)
        #expect(request.from.userId == ann && request.to.userId == bob && request.to.displayName == "bob")
        #expect(events.map(\.name) == ["friend.request.received"])
        #expect(Set(try #require(events.first).users) == [ann, bob])
        #expect((events.first?.event as? ServerEvent.FriendRequestReceived)?.request == request)
        // Only the recipient accepts; a stranger's attempt is no request of theirs.
        await #expect(throws: FriendError.noSuchRequestToYou) {
            _ = try await friends.accept(Caller(userId: zed), requestId: request.requestId)
        }
        await #expect(throws: FriendError.noSuchRequestToYou) {
            _ = try await friends.accept(Caller(userId: ann), requestId: request.requestId)
        }
        await #expect(throws: FriendError.alreadyRequested) {
            _ = try await friends.request(Caller(userId: ann), phone: nil, userId: bob)
        }
        let (accepted, told) = try await friends.accept(Caller(userId: bob), requestId: request.requestId)
        #expect(accepted.friend == UserSummary(userId: ann, displayName: "ann"))
        #expect(told.map(\.name) == ["friend.request.accepted"])
        #expect(Set(try #require(told.first).users) == [ann, bob])
        let event = try #require(told.first?.event as? ServerEvent.FriendRequestAccepted)
        #expect(event.requester.userId == ann && event.accepter.userId == bob && event.requestId == request.requestId)
        #expect(try await friends.list(of: ann).friends.map(\.userId) == [bob])
        #expect(try await friends.list(of: zed).friends.isEmpty)
        // Asking a friend again answers with the friendship and tells nobody.
        let (again, none) = try await friends.request(Caller(userId: bob), phone: try await phone(of: ann), userId: nil)
        #expect(again.friend?.userId == ann && again.request == nil)
        #expect(none.isEmpty)
    }

    @Test func crossingRequestsMakeFriendsAtOnce() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        let friends = try service()
        _ = try await friends.request(Caller(userId: ann), phone: nil, userId: bob)
        let (result, events) = try await friends.request(Caller(userId: bob), phone: nil, userId: ann)
        #expect(result.request == nil)
        #expect(result.friend?.userId == ann)
        #expect(events.map(\.name) == ["friend.request.accepted"])
        #expect(try await friends.requests(of: ann).outgoing.isEmpty)
        #expect(try await friends.list(of: bob).friends.map(\.userId) == [ann])
    }

    @Test func theRulesOfARequest() async throws {
        let db = EngineTestDatabase.shared
        let ann = try await db.user("ann")
        let friends = try service()
        let me = Caller(userId: ann)
        await #expect(throws: FriendError.missingTarget) { _ = try await friends.request(me, phone: nil, userId: nil) }
        await #expect(throws: FriendError.invalidPhone) {
            _ = try await friends.request(me, phone: "12ab", userId: nil)
        }
        await #expect(throws: FriendError.noSuchUser) { _ = try await friends.request(me, phone: nil, userId: -5) }
        await #expect(throws: FriendError.selfRequest) { _ = try await friends.request(me, phone: nil, userId: ann) }
        #expect(FriendError.selfRequest.wire == ServiceError(.selfRequest, "you cannot befriend yourself"))
    }

    @Test func declineAndCancelBelongToEachSide() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        let friends = try service()
        let first = try #require(try await friends.request(Caller(userId: ann), phone: nil, userId: bob).0.request)
        // The sender cannot decline, the recipient cannot cancel.
        await #expect(throws: FriendError.noSuchRequestToYou) {
            _ = try await friends.settle(Caller(userId: ann), requestId: first.requestId, decline: true)
        }
        await #expect(throws: FriendError.noSuchRequestFromYou) {
            _ = try await friends.settle(Caller(userId: bob), requestId: first.requestId, decline: false)
        }
        let declined = try await friends.settle(Caller(userId: bob), requestId: first.requestId, decline: true)
        #expect(declined.map(\.name) == ["friend.request.declined"])
        #expect(Set(try #require(declined.first).users) == [ann, bob])
        let second = try #require(try await friends.request(Caller(userId: ann), phone: nil, userId: bob).0.request)
        #expect(try await friends.requests(of: bob).incoming.map(\.requestId) == [second.requestId])
        let cancelled = try await friends.settle(Caller(userId: ann), requestId: second.requestId, decline: false)
        let event = try #require(cancelled.first?.event as? ServerEvent.FriendRequestCancelled)
        #expect(
            event == ServerEvent.FriendRequestCancelled(requestId: second.requestId, fromUserId: ann, toUserId: bob))
        #expect(try await friends.requests(of: bob).incoming.isEmpty)
    }

    @Test func removingEndsAFriendshipForBoth() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        try await db.befriend(ann, bob)
        let friends = try service()
        await #expect(throws: FriendError.notFriends) { _ = try await friends.remove(Caller(userId: zed), friend: ann) }
        let events = try await friends.remove(Caller(userId: bob), friend: ann)
        #expect(events.map(\.name) == ["friend.removed"])
        #expect((events.first?.event as? ServerEvent.FriendRemoved)?.userIds == [bob, ann])
        #expect(Set(try #require(events.first).users) == [ann, bob])
        await #expect(throws: FriendError.notFriends) { _ = try await friends.remove(Caller(userId: ann), friend: bob) }
    }

    @Test func contactsMatchFindsRegisteredNumbersWithinItsBuckets() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob) = (try await db.user("ann"), try await db.user("bob"))
        let friends = try service()
        let me = Caller(userId: ann, address: "198.51.100.\(Int.random(in: 1...250))-\(UUID().uuidString)")
        // Over the per-request maximum: refused without costing a token.
        await #expect(throws: FriendError.tooManyContacts(max: 5)) {
            _ = try await friends.match(me, phones: Array(repeating: "+15550000000", count: 6))
        }
        let bobsPhone = try await phone(of: bob)
        let found = try await friends.match(me, phones: [bobsPhone, try await phone(of: ann), "not a number"])
        // Oneself and invalid numbers are skipped.
        #expect(found.matches == [RegisteredContact(phone: bobsPhone, userId: bob, displayName: "bob")])
        do {
            _ = try await friends.match(me, phones: [bobsPhone])
            Issue.record("a look-up beyond the account's burst was accepted")
        } catch {
            guard case .contactLookupsLimited(let retryAfter) = error else { throw error }
            #expect(retryAfter > 0 && retryAfter <= 10_000)
        }
        clock.advance(by: 10)
        #expect(try await friends.match(me, phones: [bobsPhone]).matches.count == 1)
        // The address's bucket (4, then one every 10 s) holds one token now, whichever account asks from it.
        let other = Caller(userId: bob, address: me.address)
        do {
            _ = try await friends.match(other, phones: [bobsPhone, bobsPhone])
            Issue.record("a look-up beyond the address's burst was accepted")
        } catch {
            guard case .addressContactLookupsLimited(let retryAfter) = error else { throw error }
            #expect(retryAfter > 0 && retryAfter <= 10_000)
            #expect(error.wire.message == "too many contact look-ups from your address; retry later")
        }
    }
}
