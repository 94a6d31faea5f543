//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of the social graph: handles, follows, blocks and mutes, and the visibility helpers every social
/// feature calls (docs/social.md, "Visibility and blocks").
public enum SocialGraphRepository {
    /// Whether `a` blocked `b` or `b` blocked `a` (one primary-key probe each way).
    public static func isBlockedEitherWay(_ db: PostgresConnection, _ a: Int64, _ b: Int64) throws -> Bool {
        !(try db.execute(
            cached: """
                SELECT 1 FROM blocks
                WHERE (blocker_id = $1 AND blocked_id = $2) OR (blocker_id = $2 AND blocked_id = $1) LIMIT 1
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
                    ELSE EXISTS (SELECT 1 FROM follows f
                                 WHERE f.follower_id = $1 AND f.followee_id = $2 AND f.state = 'active')
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
        Set(
            try db.execute(cached: "SELECT muted_id FROM mutes WHERE muter_id = $1", [.int(user)]).map {
                try $0.decode(Int64.self, column: 0)
            })
    }

    /// The users `user` blocked or who blocked `user`.
    public static func blockedEitherWayIds(_ db: PostgresConnection, of user: Int64) throws -> Set<Int64> {
        Set(
            try db.execute(
                cached: """
                    SELECT blocked_id FROM blocks WHERE blocker_id = $1
                    UNION SELECT blocker_id FROM blocks WHERE blocked_id = $1
                    """,
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

    /// `hasHandle` for a transaction that is about to create something of `user`'s (a post, a repost, a like): the
    /// row is locked `FOR KEY SHARE` until the transaction ends (the lock the insert's foreign key takes anyway).
    /// Account deletion's first transaction holds it `FOR UPDATE` while it marks the account deleted and frees its
    /// handle: a transaction that locked first commits before the deletion can (so the deletion's steps see what it
    /// created); one that comes later waits, then finds no handle (`handle_required`).
    public static func lockHandle(_ db: PostgresConnection, _ user: Int64) throws -> Bool {
        !(try db.execute(
            cached: """
                SELECT 1 FROM users WHERE id = $1 AND handle IS NOT NULL AND deleted_at IS NULL FOR KEY SHARE
                """, [.int(user)]
        ).isEmpty)
    }

    /// These users as `social_user` objects (missing ids are absent; deleted accounts' stubs are present).
    public static func socialUsers(_ db: PostgresConnection, ids: [Int64]) throws -> [Int64: SocialUser] {
        guard !ids.isEmpty else { return [:] }
        var result: [Int64: SocialUser] = [:]
        for r in try db.execute(
            cached:
                "SELECT id, display_name, handle, protected, avatar_photo_id FROM users WHERE id = ANY($1::bigint[])",
            [.text(FriendRepository.bigintArray(Array(Set(ids))))])
        {
            let user = try SocialUser(row: r)
            result[user.userId] = user
        }
        return result
    }
}

extension SocialUser: PostgresRowDecodable {
    /// Columns: id, display_name, handle, protected, and avatar_photo_id when the query has a fifth column.
    public init(row: PostgresRow) throws(PostgresDecodingError) {
        self.init(
            userId: try row.decode(column: 0), displayName: try row.decode(column: 1),
            handle: try row.decode(column: 2),
            protected: try row.decode(column: 3), avatarPhotoId: row.columns.count > 4 ? try row.decode(column: 4) : nil
        )
    }
}

/// Profiles: who may see one, and its social fields.
extension SocialGraphRepository {
    /// Whether `viewer` may see `user`'s profile: oneself; nobody when either blocked the other; a friend; anyone
    /// when `user` is a live account with a handle.
    public static func canSeeProfile(_ db: PostgresConnection, viewer: Int64, user: Int64) throws -> Bool {
        try db.execute(
            cached: """
                SELECT CASE
                    WHEN u.id = $1 THEN true
                    WHEN EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = $1 AND b.blocked_id = $2)
                                 OR (b.blocker_id = $2 AND b.blocked_id = $1)) THEN false
                    WHEN u.handle IS NOT NULL AND u.deleted_at IS NULL THEN true
                    ELSE EXISTS (SELECT 1 FROM friendships f WHERE f.user_low = least($1::bigint, $2::bigint)
                                 AND f.user_high = greatest($1::bigint, $2::bigint))
                END
                FROM users u WHERE u.id = $2
                """, [.int(viewer), .int(user)]
        ).decodeFirst(Bool.self) ?? false
    }

    /// Adds `handle`, `bio`, `protected`, `stats`, and `dm_policy` (own profile) or `relationship` (others') to a
    /// profile `viewer` may see.
    public static func decorate(_ db: PostgresConnection, _ profile: inout Profile, viewer: Int64) throws {
        let user = profile.userId
        guard
            let r = try db.execute(
                cached: """
                    SELECT handle, bio, protected, dm_policy, post_count, following_count, follower_count
                    FROM users WHERE id = $1
                    """,
                [.int(user)]
            ).first
        else { return }
        profile.handle = try r.decode(column: 0)
        profile.bio = try r.decode(column: 1)
        profile.protected = try r.decode(column: 2)
        profile.stats = ProfileStats(
            posts: try r.decode(column: 4), following: try r.decode(column: 5), followers: try r.decode(column: 6))
        profile.avatar = try MomentRepository.avatar(db, of: user)
        if user == viewer {
            profile.dmPolicy = try r.decode(column: 3)
            return
        }
        guard
            let rel = try db.execute(
                cached: """
                    SELECT coalesce((SELECT state FROM follows WHERE follower_id = $1 AND followee_id = $2), 'none'),
                        EXISTS (SELECT 1 FROM follows WHERE follower_id = $2 AND followee_id = $1 AND state = 'active'),
                        EXISTS (SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2),
                        EXISTS (SELECT 1 FROM mutes WHERE muter_id = $1 AND muted_id = $2),
                        EXISTS (SELECT 1 FROM friendships
                                WHERE user_low = least($1::bigint, $2::bigint)
                                  AND user_high = greatest($1::bigint, $2::bigint))
                    """, [.int(viewer), .int(user)]
            ).first
        else { return }
        profile.relationship = ProfileRelationship(
            following: try rel.decode(column: 0), followedBy: try rel.decode(column: 1),
            blocking: try rel.decode(column: 2),
            muting: try rel.decode(column: 3), friend: try rel.decode(column: 4))
    }
}

/// The DM policy (`users.dm_policy`): `friends` (friends only), `mutuals` (friends, or both follow each other
/// actively), `anyone` (friends, or any sender with a handle); a block either way refuses always.
extension SocialGraphRepository {
    /// Whether `sender` may open a direct conversation with `recipient`.
    public enum DirectAccess: Sendable, Equatable {
        case allowed, blocked, refused
    }

    /// One query: blocks, friendship, the recipient's policy and the mutual follows.
    public static func directAccess(_ db: PostgresConnection, from sender: Int64, to recipient: Int64) throws
        -> DirectAccess
    {
        let (blocked, allowed) = try directPolicy(db, [DirectPair(sender: sender, recipient: recipient)])
        if !blocked.isEmpty { return .blocked }
        if !allowed.isEmpty { return .allowed }
        return try FriendRepository.areFriends(db, sender, recipient) ? .allowed : .refused
    }

    /// For these (sender, recipient) pairs, in one indexed query (primary-key probes of blocks, users and follows):
    /// which are blocked either way, and which the recipient's policy admits without a friendship.
    public static func directPolicy(_ db: PostgresConnection, _ pairs: Set<DirectPair>) throws -> (
        blocked: Set<DirectPair>, allowed: Set<DirectPair>
    ) {
        guard !pairs.isEmpty else { return ([], []) }
        let list = Array(pairs)
        var blocked = Set<DirectPair>()
        var allowed = Set<DirectPair>()
        for r in try db.execute(
            cached: """
                SELECT p.s, p.r,
                    EXISTS (SELECT 1 FROM blocks b
                            WHERE (b.blocker_id = p.s AND b.blocked_id = p.r)
                               OR (b.blocker_id = p.r AND b.blocked_id = p.s)),
                    CASE u.dm_policy
                        WHEN 'anyone' THEN EXISTS (SELECT 1 FROM users me WHERE me.id = p.s AND me.handle IS NOT NULL)
                        WHEN 'mutuals' THEN
                            EXISTS (SELECT 1 FROM follows f
                                    WHERE f.follower_id = p.s AND f.followee_id = p.r AND f.state = 'active')
                            AND EXISTS (SELECT 1 FROM follows f
                                        WHERE f.follower_id = p.r AND f.followee_id = p.s AND f.state = 'active')
                        ELSE false
                    END
                FROM unnest($1::bigint[], $2::bigint[]) AS p(s, r) JOIN users u ON u.id = p.r AND u.deleted_at IS NULL
                """,
            [
                .text(FriendRepository.bigintArray(list.map(\.sender))),
                .text(FriendRepository.bigintArray(list.map(\.recipient))),
            ])
        {
            let pair = DirectPair(sender: try r.decode(column: 0), recipient: try r.decode(column: 1))
            if try r.decode(Bool.self, column: 2) {
                blocked.insert(pair)
            } else if try r.decode(Bool.self, column: 3) {
                allowed.insert(pair)
            }
        }
        return (blocked, allowed)
    }
}
