//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
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

    static let requestColumns = """
        r.id, \(WireTimestamp.sql("r.created_at")), f.id, f.display_name, t.id, t.display_name
        FROM friend_requests r JOIN users f ON f.id = r.from_user JOIN users t ON t.id = r.to_user
        """

    static func request(from r: PostgresRow) throws(PostgresDecodingError) -> FriendRequest {
        FriendRequest(
            requestId: try r.decode(column: 0), from: Profile(userId: try r.decode(column: 2), displayName: try r.decode(column: 3)),
            to: Profile(userId: try r.decode(column: 4), displayName: try r.decode(column: 5)), createdAt: try r.decode(column: 1))
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
                let target = try db.execute(
                    cached: "SELECT id, display_name FROM users WHERE ($1::text IS NOT NULL AND phone = $1) OR ($1::text IS NULL AND id = $2)",
                    [lookupPhone.map { .text($0) }, .int(userId ?? -1)])
                guard let row = target.first else { throw ServiceError(.notFound, "no user with that phone number or id") }
                let other = try row.decode(Int64.self, column: 0)
                let otherName = try row.decode(String.self, column: 1)
                guard other != me else { throw ServiceError(.selfRequest, "you cannot befriend yourself") }
                if try FriendRepository.areFriends(db, me, other) {
                    return (FriendRequestResult(request: nil, friend: Friend(userId: other, displayName: otherName)), [])
                }
                // The other side already asked: accept theirs.
                let crossing = try db.execute(
                    cached: "DELETE FROM friend_requests WHERE from_user = $1 AND to_user = $2 RETURNING id", [.int(other), .int(me)])
                if let requestId = try crossing.decodeFirst(Int64.self) {
                    let (friend, events) = try Self.befriend(db, requestId: requestId, requester: other, accepter: me)
                    return (FriendRequestResult(request: nil, friend: friend), events)
                }
                let inserted = try db.execute(
                    cached: "INSERT INTO friend_requests (from_user, to_user) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id",
                    [.int(me), .int(other)])
                guard let requestId = try inserted.decodeFirst(Int64.self) else {
                    throw ServiceError(.alreadyRequested, "you already sent this user a request")
                }
                guard let r = try db.execute(cached: "SELECT \(Self.requestColumns) WHERE r.id = $1", [.int(requestId)]).first else {
                    throw ServiceError(.internal, "internal error")
                }
                let request = try Self.request(from: r)
                let event = ProtocolCodec.encodeEvent("friend.request.received", ["request": request])
                return (FriendRequestResult(request: request, friend: nil), [PushEvent(users: [me, other], bytes: event)])
            }
        } catch { throw ServiceError.from(error) }
    }

    static func befriend(_ db: PostgresConnection, requestId: Int64, requester: Int64, accepter: Int64) throws -> (Friend, [PushEvent]) {
        try FriendRepository.insert(db, requester, accepter)
        // A request in the other direction, if any, is settled too.
        try db.execute(cached: "DELETE FROM friend_requests WHERE from_user = $1 AND to_user = $2", [.int(accepter), .int(requester)])
        let names = try db.execute(cached: "SELECT id, display_name FROM users WHERE id = ANY($1::bigint[])", [.text("{\(requester),\(accepter)}")])
        var byId: [Int64: String] = [:]
        for r in names { byId[try r.decode(Int64.self, column: 0)] = try r.decode(String.self, column: 1) }
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
                let rows = try db.execute(
                    cached: "DELETE FROM friend_requests WHERE id = $1 AND to_user = $2 RETURNING from_user", [.int(requestId), .int(me)])
                guard let from = try rows.decodeFirst(Int64.self) else { throw ServiceError(.notFound, "no such pending request to you") }
                return try Self.befriend(db, requestId: requestId, requester: from, accepter: me)
            }
        } catch { throw ServiceError.from(error) }
    }

    /// Declines (addressed to me) or cancels (sent by me) a request.
    public func settle(requestId: Int64, me: Int64, decline: Bool) async throws(ServiceError) -> [PushEvent] {
        do {
            return try await pool.transaction { db in
                let sql =
                    decline
                    ? "DELETE FROM friend_requests WHERE id = $1 AND to_user = $2 RETURNING from_user, to_user"
                    : "DELETE FROM friend_requests WHERE id = $1 AND from_user = $2 RETURNING from_user, to_user"
                let rows = try db.execute(cached: sql, [.int(requestId), .int(me)])
                guard let r = rows.first else {
                    throw ServiceError(.notFound, decline ? "no such pending request to you" : "no such pending request from you")
                }
                let from = try r.decode(Int64.self, column: 0)
                let to = try r.decode(Int64.self, column: 1)
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
                guard try FriendRepository.delete(db, me, other) else { throw ServiceError(.notFriends, "you are not friends with this user") }
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
                let incoming = try db.execute(cached: "SELECT \(Self.requestColumns) WHERE r.to_user = $1 ORDER BY r.id", [.int(me)]).map { r throws(PostgresDecodingError) in try Self.request(from: r) }
                let outgoing = try db.execute(cached: "SELECT \(Self.requestColumns) WHERE r.from_user = $1 ORDER BY r.id", [.int(me)]).map { r throws(PostgresDecodingError) in try Self.request(from: r) }
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
        // A text[] literal built from normalised numbers ("+" and digits only), passed as one parameter.
        let literal = "{" + list.joined(separator: ",") + "}"
        do {
            return try await pool.withConnection { db in
                try db.execute(
                    cached: "SELECT phone, id, display_name FROM users WHERE phone = ANY($1::text[]) AND id <> $2 ORDER BY phone",
                    [.text(literal), .int(me)]
                ).map { ContactMatch(phone: try $0.decode(column: 0), userId: try $0.decode(column: 1), displayName: try $0.decode(column: 2)) }
            }
        } catch { throw ServiceError.from(error) }
    }
}
