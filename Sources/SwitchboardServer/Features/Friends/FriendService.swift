//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// Friends and contact discovery's use cases (docs/protocol.md "Friends"): requests, friendships, the lists and
/// `contacts.match`. Each change is one transaction on the database seam; its events (`friend.*`, to both users)
/// are returned with the result, never pushed from here. Off the loops only.
final class FriendService: Sendable {
    /// The database (the server's pool, the test database in tests).
    let db: any Database
    /// The calling code for national phone numbers (`--default-country-code`; nil: `+` required).
    let defaultCountryCode: String?
    /// Most phone numbers in one `contacts.match`.
    let maxContactsPerMatch: Int
    /// `contacts.match` per account and per address.
    let contacts: ContactLookupLimiter
    /// Monotonic nanoseconds for the rate limiters (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(
        db: any Database, defaultCountryCode: String? = nil, maxContactsPerMatch: Int = 500,
        limits: DiscoveryLimits = DiscoveryLimits(), clock: any EngineClock = SystemClock()
    ) {
        self.db = db
        self.defaultCountryCode = defaultCountryCode
        self.maxContactsPerMatch = maxContactsPerMatch
        contacts = ContactLookupLimiter(limits)
        self.clock = clock
    }

    /// `friends.request`: a request to a user found by phone number or id. A request to an existing friend answers
    /// with the friendship (nobody told); one crossing a request from the other side accepts it
    /// (`friend.request.accepted`); otherwise both hear `friend.request.received`.
    func request(
        _ caller: Caller, phone: String?, userId: Int64?
    ) async throws(FriendError) -> (FriendsRequestResult, [DomainEvent]) {
        var phoneNumber: String? = nil
        if let phone {
            do { phoneNumber = try PhoneNumber.normalize(phone, defaultCountryCode: defaultCountryCode) } catch {
                throw .invalidPhone
            }
        }
        guard phoneNumber != nil || userId != nil else { throw .missingTarget }
        let (me, lookupPhone) = (caller.userId, phoneNumber)
        return try await db.write(as: FriendError.self) { db in
            guard let (other, otherName) = try UserRepository.find(db, phone: lookupPhone, id: userId) else {
                throw FriendError.noSuchUser
            }
            guard other != me else { throw FriendError.selfRequest }
            if try FriendRepository.areFriends(db, me, other) {
                return (FriendsRequestResult(friend: UserSummary(userId: other, displayName: otherName)), [])
            }
            // The other side already asked: accept theirs.
            if let requestId = try FriendRequestRepository.delete(db, from: other, to: me) {
                let (friend, event) = try Self.befriend(db, requestId: requestId, requester: other, accepter: me)
                return (FriendsRequestResult(friend: friend), [event])
            }
            guard let requestId = try FriendRequestRepository.insert(db, from: me, to: other) else {
                throw FriendError.alreadyRequested
            }
            guard let request = try FriendRequestRepository.request(db, id: requestId) else {
                throw FriendError.requestNotStored
            }
            let pending = PendingFriendRequest(request)
            return (
                FriendsRequestResult(request: pending),
                [DomainEvent(to: [me, other], ServerEvent.FriendRequestReceived(request: pending))]
            )
        }
    }

    /// `friends.accept`: a request addressed to the caller; both hear `friend.request.accepted`.
    func accept(_ caller: Caller, requestId: Int64) async throws(FriendError) -> (FriendResult, [DomainEvent]) {
        let me = caller.userId
        let (friend, event) = try await db.write(as: FriendError.self) { db in
            guard let (from, _) = try FriendRequestRepository.delete(db, id: requestId, user: me, asRecipient: true)
            else { throw FriendError.noSuchRequestToYou }
            return try Self.befriend(db, requestId: requestId, requester: from, accepter: me)
        }
        return (FriendResult(friend: friend), [event])
    }

    /// `friends.decline` (a request addressed to the caller, `decline`) or `friends.cancel` (one the caller sent);
    /// both users hear `friend.request.declined` or `friend.request.cancelled`.
    func settle(_ caller: Caller, requestId: Int64, decline: Bool) async throws(FriendError) -> [DomainEvent] {
        let me = caller.userId
        let (from, to) = try await db.write(as: FriendError.self) { db in
            guard let pair = try FriendRequestRepository.delete(db, id: requestId, user: me, asRecipient: decline)
            else { throw decline ? FriendError.noSuchRequestToYou : FriendError.noSuchRequestFromYou }
            return pair
        }
        let event: any ProtocolEvent =
            decline
            ? ServerEvent.FriendRequestDeclined(requestId: requestId, fromUserId: from, toUserId: to)
            : ServerEvent.FriendRequestCancelled(requestId: requestId, fromUserId: from, toUserId: to)
        return [DomainEvent(to: [from, to], event)]
    }

    /// `friends.remove`: ends a friendship; both hear `friend.removed` (the remover first).
    func remove(_ caller: Caller, friend other: Int64) async throws(FriendError) -> [DomainEvent] {
        let me = caller.userId
        try await db.write(as: FriendError.self) { db in
            guard try FriendRepository.delete(db, me, other) else { throw FriendError.notFriends }
        }
        return [DomainEvent(to: [me, other], ServerEvent.FriendRemoved(userIds: [me, other]))]
    }

    /// `friends.list`: the user's friends in alphabetical order of display name (case-insensitive), then id.
    func list(of userId: Int64) async throws(FriendError) -> FriendsListResult {
        let friends = try await db.read(as: FriendError.self) { db in try FriendRepository.friends(db, of: userId) }
        return FriendsListResult(friends: friends.map(UserSummary.init))
    }

    /// `friends.requests`: pending requests to and from the user, oldest first.
    func requests(of userId: Int64) async throws(FriendError) -> FriendsRequestsResult {
        try await db.read(as: FriendError.self) { db in
            FriendsRequestsResult(
                incoming: try FriendRequestRepository.requests(db, of: userId, incoming: true).map(
                    PendingFriendRequest.init),
                outgoing: try FriendRequestRepository.requests(db, of: userId, incoming: false).map(
                    PendingFriendRequest.init))
        }
    }

    /// `contacts.match`: which of these phone numbers are registered (invalid ones are skipped). A list over the
    /// per-request maximum is refused without costing tokens; otherwise each number costs one token of the caller's
    /// account and of its address.
    func match(_ caller: Caller, phones: [String]) async throws(FriendError) -> ContactsMatchResult {
        guard phones.count <= maxContactsPerMatch else { throw .tooManyContacts(max: maxContactsPerMatch) }
        try contacts.attempt(user: caller.userId, address: caller.address, count: phones.count, now: clock.now())
        let normalized = phones.compactMap { try? PhoneNumber.normalize($0, defaultCountryCode: defaultCountryCode) }
        let list = Array(Set(normalized))
        guard !list.isEmpty else { return ContactsMatchResult(matches: []) }
        let me = caller.userId
        let matches = try await db.read(as: FriendError.self) { db in
            try UserRepository.matchPhones(db, list, excluding: me)
        }
        return ContactsMatchResult(matches: matches.map(RegisteredContact.init))
    }

    /// Makes `requester` and `accepter` friends (settling a request the other way too): the requester as the
    /// accepter's new friend, and `friend.request.accepted` for both.
    static func befriend(
        _ db: PostgresConnection, requestId: Int64, requester: Int64, accepter: Int64
    ) throws -> (UserSummary, DomainEvent) {
        try FriendRepository.insert(db, requester, accepter)
        // A request in the other direction, if any, is settled too.
        try FriendRequestRepository.delete(db, from: accepter, to: requester)
        let byId = try UserRepository.displayNames(db, of: [requester, accepter])
        let asked = UserSummary(userId: requester, displayName: byId[requester] ?? "")
        let answered = UserSummary(userId: accepter, displayName: byId[accepter] ?? "")
        let event = ServerEvent.FriendRequestAccepted(requestId: requestId, requester: asked, accepter: answered)
        return (asked, DomainEvent(to: [requester, accepter], event))
    }
}
