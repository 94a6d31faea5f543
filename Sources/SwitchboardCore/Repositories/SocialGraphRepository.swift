//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of the social graph: handles, follows, blocks and mutes, and the visibility helpers every social
/// feature calls (docs/social.md, "Visibility and blocks").
public enum SocialGraphRepository {
    /// Whether `a` blocked `b` or `b` blocked `a` (one primary-key probe each way).
    public static func isBlockedEitherWay(_ db: PostgresConnection, _ a: Int64, _ b: Int64) throws -> Bool {
        !(try db.execute(
            cached: """
                SELECT 1 FROM blocks WHERE (blocker_id = $1 AND blocked_id = $2) OR (blocker_id = $2 AND blocked_id = $1) LIMIT 1
                """, [.int(a), .int(b)]
        ).isEmpty)
    }

    /// Whether `viewer` may see `author`'s posts: never when either blocked the other (or the author does not
    /// exist or is deleted); otherwise when the author is not protected, is the viewer, or the viewer has an
    /// ACTIVE follow of the author.
    public static func canSeePosts(_ db: PostgresConnection, viewer: Int64, author: Int64) throws -> Bool {
        try db.execute(
            cached: """
                SELECT CASE
                    WHEN u.id = $1 THEN true
                    WHEN EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = $1 AND b.blocked_id = $2)
                                 OR (b.blocker_id = $2 AND b.blocked_id = $1)) THEN false
                    WHEN NOT u.protected THEN true
                    ELSE EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = $1 AND f.followee_id = $2 AND f.state = 'active')
                END
                FROM users u WHERE u.id = $2 AND u.deleted_at IS NULL
                """, [.int(viewer), .int(author)]
        ).decodeFirst(Bool.self) ?? false
    }

    /// The users `user` follows actively (any order).
    public static func activeFolloweeIds(_ db: PostgresConnection, of user: Int64) throws -> [Int64] {
        try db.execute(
            cached: "SELECT followee_id FROM follows WHERE follower_id = $1 AND state = 'active'", [.int(user)]
        ).map { try $0.decode(Int64.self, column: 0) }
    }

    /// The users `user` mutes.
    public static func mutedIds(_ db: PostgresConnection, of user: Int64) throws -> Set<Int64> {
        Set(try db.execute(cached: "SELECT muted_id FROM mutes WHERE muter_id = $1", [.int(user)]).map { try $0.decode(Int64.self, column: 0) })
    }

    /// The users `user` blocked or who blocked `user`.
    public static func blockedEitherWayIds(_ db: PostgresConnection, of user: Int64) throws -> Set<Int64> {
        Set(
            try db.execute(
                cached: "SELECT blocked_id FROM blocks WHERE blocker_id = $1 UNION SELECT blocker_id FROM blocks WHERE blocked_id = $1",
                [.int(user)]
            ).map { try $0.decode(Int64.self, column: 0) })
    }

    /// lower(handle) → user id for the given lowercased handles that exist (mention resolution); deleted accounts
    /// and strings that cannot be handles are absent.
    public static func userIds(_ db: PostgresConnection, handles: [String]) throws -> [String: Int64] {
        let wanted = Set(handles.map { $0.lowercased() }.filter(Handle.isWellFormed))
        guard !wanted.isEmpty else { return [:] }
        var result: [String: Int64] = [:]
        for r in try db.execute(
            cached: "SELECT lower(handle), id FROM users WHERE lower(handle) = ANY($1::text[]) AND deleted_at IS NULL",
            [.text("{" + wanted.sorted().joined(separator: ",") + "}")])
        {
            result[try r.decode(String.self, column: 0)] = try r.decode(Int64.self, column: 1)
        }
        return result
    }

    /// Whether `user` is a live account with a handle (a social profile).
    public static func hasHandle(_ db: PostgresConnection, _ user: Int64) throws -> Bool {
        !(try db.execute(
            cached: "SELECT 1 FROM users WHERE id = $1 AND handle IS NOT NULL AND deleted_at IS NULL", [.int(user)]
        ).isEmpty)
    }

    /// These users as `social_user` objects (missing ids are absent; deleted accounts' stubs are present).
    public static func socialUsers(_ db: PostgresConnection, ids: [Int64]) throws -> [Int64: SocialUser] {
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: SocialUser] = [:]
        for r in try db.execute(
            cached: "SELECT id, display_name, handle, protected FROM users WHERE id = ANY($1::bigint[])",
            [.text(FriendRepository.bigintArray(Array(Set(ids))))])
        {
            let user = try SocialUser(row: r)
            result[user.userId] = user
        }
        return result
    }
}

extension SocialUser: PostgresRowDecodable {
    /// Columns: id, display_name, handle, protected.
    public init(row: PostgresRow) throws(PostgresDecodingError) {
        self.init(
            userId: try row.decode(column: 0), displayName: try row.decode(column: 1), handle: try row.decode(column: 2),
            protected: try row.decode(column: 3))
    }
}
