//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardDomain
import SwitchboardProtocol
public import SwitchboardStore

/// A pending friend request as clients see it.
public struct FriendRequest: Codable, Sendable, Equatable {
    public var requestId: Int64
    public var from: Profile
    public var to: Profile
    public var createdAt: String
}

/// A friend in the list.
public struct Friend: Codable, Sendable, Equatable {
    public var userId: Int64
    public var displayName: String
    /// The friend's profile picture, when the list was read with it (`friends.list`).
    public var avatarPhotoId: Int64? = nil
}

/// A registered contact found by `contacts.match`.
public struct ContactMatch: Codable, Sendable, Equatable {
    public var phone: String
    public var userId: Int64
    public var displayName: String
}

/// An event to push to every connected device of some users.
public struct PushEvent: Sendable {
    public var users: [Int64]
    public var bytes: [UInt8]
    public init(users: [Int64], bytes: [UInt8]) {
        self.users = users
        self.bytes = bytes
    }
}

/// The result of `friends.request`: a new pending request, or the existing friendship.
public struct FriendRequestResult: Codable, Sendable {
    public var request: FriendRequest?
    public var friend: Friend?
}

/// Friend requests and friendships. Each change is one transaction; its events are returned for the hub
/// to push after commit.
public final class FriendService: Sendable {
    public let pool: DatabasePool
    let accounts: AccountService
    /// Most phone numbers in one `contacts.match`.
    public let maxContactsPerMatch: Int

    public init(pool: DatabasePool, accounts: AccountService, maxContactsPerMatch: Int = 500) {
        self.pool = pool
        self.accounts = accounts
        self.maxContactsPerMatch = maxContactsPerMatch
    }


    /// Sends a request to a user found by phone number or id. A request to an existing friend answers with
    /// the friendship; a request crossing one from the other side accepts it.
    public func request(from me: Int64, phone: String?, userId: Int64?) async throws(ServiceError) -> (FriendRequestResult, [PushEvent]) {
        var phoneNumber: String? = nil
        if let phone { phoneNumber = try accounts.normalizedPhone(phone) }
        guard phoneNumber != nil || userId != nil else { throw ServiceError(.badRequest, "give phone or user_id") }
        let lookupPhone = phoneNumber
        do {
            return try await pool.transaction { db in
                guard let (other, otherName) = try UserRepository.find(db, phone: lookupPhone, id: userId) else {
                    throw ServiceError(.notFound, "no user with that phone number or id")
                }
                guard other != me else { throw ServiceError(.selfRequest, "you cannot befriend yourself") }
                if try FriendRepository.areFriends(db, me, other) {
                    return (FriendRequestResult(request: nil, friend: Friend(userId: other, displayName: otherName)), [])
                }
                // The other side already asked: accept theirs.
                if let requestId = try FriendRequestRepository.delete(db, from: other, to: me) {
                    let (friend, events) = try Self.befriend(db, requestId: requestId, requester: other, accepter: me)
                    return (FriendRequestResult(request: nil, friend: friend), events)
                }
                guard let requestId = try FriendRequestRepository.insert(db, from: me, to: other) else {
                    throw ServiceError(.alreadyRequested, "you already sent this user a request")
                }
                guard let request = try FriendRequestRepository.request(db, id: requestId) else {
                    throw ServiceError(.internal, "internal error")
                }
                let event = ProtocolCodec.encodeEvent("friend.request.received", ["request": request])
                return (FriendRequestResult(request: request, friend: nil), [PushEvent(users: [me, other], bytes: event)])
            }
        } catch { throw ServiceError.from(error) }
    }

    static func befriend(_ db: PostgresConnection, requestId: Int64, requester: Int64, accepter: Int64) throws -> (Friend, [PushEvent]) {
        try FriendRepository.insert(db, requester, accepter)
        // A request in the other direction, if any, is settled too.
        try FriendRequestRepository.delete(db, from: accepter, to: requester)
        let byId = try UserRepository.displayNames(db, of: [requester, accepter])
        let requesterProfile = Friend(userId: requester, displayName: byId[requester] ?? "")
        let accepterProfile = Friend(userId: accepter, displayName: byId[accepter] ?? "")
        let event = ProtocolCodec.encodeEvent(
            "friend.request.accepted", AcceptedEvent(requestId: requestId, requester: requesterProfile, accepter: accepterProfile))
        return (requesterProfile, [PushEvent(users: [requester, accepter], bytes: event)])
    }

    struct AcceptedEvent: Encodable {
        var requestId: Int64
        var requester: Friend
        var accepter: Friend
    }

    struct RequestEvent: Encodable {
        var requestId: Int64
        var fromUserId: Int64
        var toUserId: Int64
    }

    /// Accepts a request addressed to `me`.
    public func accept(requestId: Int64, me: Int64) async throws(ServiceError) -> (Friend, [PushEvent]) {
        do {
            return try await pool.transaction { db in
                guard let (from, _) = try FriendRequestRepository.delete(db, id: requestId, user: me, asRecipient: true) else {
                    throw ServiceError(.notFound, "no such pending request to you")
                }
                return try Self.befriend(db, requestId: requestId, requester: from, accepter: me)
            }
        } catch { throw ServiceError.from(error) }
    }

    /// Declines (addressed to me) or cancels (sent by me) a request.
    public func settle(requestId: Int64, me: Int64, decline: Bool) async throws(ServiceError) -> [PushEvent] {
        do {
            return try await pool.transaction { db in
                guard let (from, to) = try FriendRequestRepository.delete(db, id: requestId, user: me, asRecipient: decline) else {
                    throw ServiceError(.notFound, decline ? "no such pending request to you" : "no such pending request from you")
                }
                let event = ProtocolCodec.encodeEvent(
                    decline ? "friend.request.declined" : "friend.request.cancelled",
                    RequestEvent(requestId: requestId, fromUserId: from, toUserId: to))
                return [PushEvent(users: [from, to], bytes: event)]
            }
        } catch { throw ServiceError.from(error) }
    }

    /// Ends a friendship.
    public func remove(friend other: Int64, me: Int64) async throws(ServiceError) -> [PushEvent] {
        do {
            return try await pool.transaction { db in
                guard try FriendRepository.delete(db, me, other) else {
                    throw ServiceError(.notFriends, "you are not friends with this user")
                }
                let event = ProtocolCodec.encodeEvent("friend.removed", ["user_ids": [me, other]])
                return [PushEvent(users: [me, other], bytes: event)]
            }
        } catch { throw ServiceError.from(error) }
    }

    /// Friends in alphabetical order of display name (case-insensitive), then user id.
    public func friends(of me: Int64) async throws(ServiceError) -> [Friend] {
        do {
            return try await pool.withConnection { db in
                try FriendRepository.friends(db, of: me)
            }
        } catch { throw ServiceError.from(error) }
    }

    /// Pending requests to and from `me`, oldest first.
    public func requests(of me: Int64) async throws(ServiceError) -> (incoming: [FriendRequest], outgoing: [FriendRequest]) {
        do {
            return try await pool.withConnection { db in
                let incoming = try FriendRequestRepository.requests(db, of: me, incoming: true)
                let outgoing = try FriendRequestRepository.requests(db, of: me, incoming: false)
                return (incoming, outgoing)
            }
        } catch { throw ServiceError.from(error) }
    }

    /// Which of these phone numbers are registered (invalid numbers are skipped).
    public func match(phones: [String], me: Int64) async throws(ServiceError) -> [ContactMatch] {
        guard phones.count <= maxContactsPerMatch else {
            throw ServiceError(.tooMany, "at most \(maxContactsPerMatch) phone numbers per call")
        }
        var normalized: [String] = []
        for raw in phones { if let p = try? accounts.normalizedPhone(raw) { normalized.append(p) } }
        let list = Array(Set(normalized))
        guard !list.isEmpty else { return [] }
        do {
            return try await pool.withConnection { db in try UserRepository.matchPhones(db, list, excluding: me) }
        } catch { throw ServiceError.from(error) }
    }
}
