//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of pending friend requests.
public enum FriendRequestRepository {
    static let columns = """
        r.id, \(WireTimestamp.sql("r.created_at")), f.id, f.display_name, t.id, t.display_name
        FROM friend_requests r JOIN users f ON f.id = r.from_user JOIN users t ON t.id = r.to_user
        """

    /// Stores a request; its id, or nil when `from` already asked `to`.
    public static func insert(_ db: PostgresConnection, from: Int64, to: Int64) throws -> Int64? {
        try db.execute(
            cached:
                "INSERT INTO friend_requests (from_user, to_user) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id",
            [.int(from), .int(to)]
        ).decodeFirst(Int64.self)
    }

    /// Deletes the request from `from` to `to`, if any; its id.
    @discardableResult
    public static func delete(_ db: PostgresConnection, from: Int64, to: Int64) throws -> Int64? {
        try db.execute(
            cached: "DELETE FROM friend_requests WHERE from_user = $1 AND to_user = $2 RETURNING id",
            [.int(from), .int(to)]
        )
        .decodeFirst(Int64.self)
    }

    /// Deletes request `id` if `user` is its recipient (`asRecipient`) or its sender; its (from, to), or nil.
    public static func delete(_ db: PostgresConnection, id: Int64, user: Int64, asRecipient: Bool) throws -> (
        from: Int64, to: Int64
    )? {
        let sql =
            asRecipient
            ? "DELETE FROM friend_requests WHERE id = $1 AND to_user = $2 RETURNING from_user, to_user"
            : "DELETE FROM friend_requests WHERE id = $1 AND from_user = $2 RETURNING from_user, to_user"
        guard let r = try db.execute(cached: sql, [.int(id), .int(user)]).first else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// Request `id` as clients see it, or nil.
    public static func request(_ db: PostgresConnection, id: Int64) throws -> FriendRequest? {
        try db.execute(cached: "SELECT \(columns) WHERE r.id = $1", [.int(id)]).decodeFirst(FriendRequest.self)
    }

    /// Requests to `user` (`incoming`) or from `user`, oldest first.
    public static func requests(_ db: PostgresConnection, of user: Int64, incoming: Bool) throws -> [FriendRequest] {
        let sql =
            incoming
            ? "SELECT \(columns) WHERE r.to_user = $1 ORDER BY r.id"
            : "SELECT \(columns) WHERE r.from_user = $1 ORDER BY r.id"
        return try db.execute(cached: sql, [.int(user)]).decode(FriendRequest.self)
    }
}

extension FriendRequest: PostgresRowDecodable {
    /// Columns of `FriendRequestRepository.columns`.
    public init(row r: PostgresRow) throws(PostgresDecodingError) {
        self.init(
            requestId: try r.decode(column: 0),
            from: Profile(userId: try r.decode(column: 2), displayName: try r.decode(column: 3)),
            to: Profile(userId: try r.decode(column: 4), displayName: try r.decode(column: 5)),
            createdAt: try r.decode(column: 1))
    }
}
