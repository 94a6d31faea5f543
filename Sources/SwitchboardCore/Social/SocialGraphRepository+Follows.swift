//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The writes of the social graph. Every one runs in the caller's transaction and locks the two users' rows (in id
/// order, `FOR NO KEY UPDATE`, the lock the counters' UPDATEs take anyway) first, so a follow, an unfollow, a block
/// and an approval of the same pair run one after the other and the counters stay exact.
extension SocialGraphRepository {
    /// A live user's social columns: (handle, protected), nil when there is no such live user. Locks the rows of
    /// `a` and `b` in id order first.
    static func lockPair(_ db: PostgresConnection, _ a: Int64, _ b: Int64) throws -> [Int64: (
        handle: String?, protected: Bool
    )] {
        var result: [Int64: (handle: String?, protected: Bool)] = [:]
        for r in try db.execute(
            cached: """
                SELECT id, handle, protected FROM users WHERE id IN ($1, $2) AND deleted_at IS NULL
                ORDER BY id FOR NO KEY UPDATE
                """, [.int(a), .int(b)])
        {
            result[try r.decode(Int64.self, column: 0)] = (
                try r.decode(String?.self, column: 1), try r.decode(Bool.self, column: 2)
            )
        }
        return result
    }

    /// The state of `follower`'s follow of `followee`.
    public static func followState(_ db: PostgresConnection, follower: Int64, followee: Int64) throws -> FollowState {
        guard
            let s = try db.execute(
                cached: "SELECT state FROM follows WHERE follower_id = $1 AND followee_id = $2",
                [.int(follower), .int(followee)]
            ).decodeFirst(String.self)
        else { return .none }
        return FollowState(rawValue: s) ?? .none
    }

    /// The outcome of `follow`.
    public enum FollowOutcome: Sendable, Equatable {
        /// A new follow in this state (a `pending` one is a request to a protected account).
        case created(FollowState)
        /// The follow existed already in this state.
        case existing(FollowState)
        case noSuchUser, yourself, noHandle, tooMany
    }

    /// `follower` follows `followee`: `pending` when the followee is protected, else `active` (counters adjusted).
    /// Refused (nothing changed) for oneself, a user without a handle, a deleted account, a block either way
    /// (`noSuchUser`), a follower without a handle, or over `maxFollowing` follows (active and pending).
    public static func follow(_ db: PostgresConnection, follower: Int64, followee: Int64, maxFollowing: Int) throws
        -> FollowOutcome
    {
        guard follower != followee else { return .yourself }
        let users = try lockPair(db, follower, followee)
        guard let me = users[follower], me.handle != nil else { return .noHandle }
        guard let them = users[followee], them.handle != nil, !(try isBlockedEitherWay(db, follower, followee)) else {
            return .noSuchUser
        }
        let current = try followState(db, follower: follower, followee: followee)
        if current != .none { return .existing(current) }
        let count =
            try db.execute(cached: "SELECT count(*) FROM follows WHERE follower_id = $1", [.int(follower)]).decodeFirst(
                Int64.self) ?? 0
        guard count < Int64(maxFollowing) else { return .tooMany }
        let state: FollowState = them.protected ? .pending : .active
        try db.execute(
            cached: "INSERT INTO follows (follower_id, followee_id, state) VALUES ($1, $2, $3)",
            [.int(follower), .int(followee), .text(state.rawValue)])
        if state == .active { try adjustCounts(db, follower: follower, followee: followee, by: 1) }
        return .created(state)
    }

    /// Ends `follower`'s follow of `followee` in any state (counters adjusted when it was active); its former
    /// state (`none`: there was none). With `onlyPending`, only a pending request is removed (a denial).
    public static func unfollow(
        _ db: PostgresConnection, follower: Int64, followee: Int64, onlyPending: Bool = false
    ) throws -> FollowState {
        guard follower != followee else { return .none }
        _ = try lockPair(db, follower, followee)
        guard
            let s = try db.execute(
                cached: """
                    DELETE FROM follows
                    WHERE follower_id = $1 AND followee_id = $2 AND (NOT $3::boolean OR state = 'pending')
                    RETURNING state
                    """, [.int(follower), .int(followee), .bool(onlyPending)]
            ).decodeFirst(String.self)
        else { return .none }
        if s == FollowState.active.rawValue { try adjustCounts(db, follower: follower, followee: followee, by: -1) }
        return FollowState(rawValue: s) ?? .none
    }

    /// Makes `requester`'s pending follow of `followee` active; false when there was no pending request.
    public static func approve(_ db: PostgresConnection, followee: Int64, requester: Int64) throws -> Bool {
        guard followee != requester else { return false }
        _ = try lockPair(db, followee, requester)
        guard
            !(try db.execute(
                cached: """
                    UPDATE follows SET state = 'active'
                    WHERE follower_id = $1 AND followee_id = $2 AND state = 'pending' RETURNING 1
                    """, [.int(requester), .int(followee)]
            ).isEmpty)
        else { return false }
        try adjustCounts(db, follower: requester, followee: followee, by: 1)
        return true
    }

    /// Approves every pending request to `user` (it stopped being protected; the caller holds `user`'s row lock
    /// from its UPDATE). The approved followers' ids.
    public static func approveAll(_ db: PostgresConnection, followee user: Int64) throws -> [Int64] {
        let ids = try db.execute(
            cached: """
                UPDATE follows SET state = 'active' WHERE followee_id = $1 AND state = 'pending'
                RETURNING follower_id
                """,
            [.int(user)]
        ).map { try $0.decode(Int64.self, column: 0) }.sorted()
        guard !ids.isEmpty else { return [] }
        try db.execute(
            cached: "UPDATE users SET follower_count = follower_count + $2 WHERE id = $1",
            [.int(user), .int(Int64(ids.count))])
        try db.execute(
            cached: "UPDATE users SET following_count = following_count + 1 WHERE id = ANY($1::bigint[])",
            [.text(FriendRepository.bigintArray(ids))])
        return ids
    }

    static func adjustCounts(_ db: PostgresConnection, follower: Int64, followee: Int64, by delta: Int64) throws {
        try db.execute(
            cached: """
                UPDATE users SET following_count = following_count + CASE WHEN id = $1 THEN $3::int ELSE 0 END,
                                 follower_count = follower_count + CASE WHEN id = $2 THEN $3::int ELSE 0 END
                WHERE id IN ($1, $2)
                """, [.int(follower), .int(followee), .int(delta)])
    }

    /// `blocker` blocks `blocked`: the follows between them both ways (pending too) are removed, counters adjusted.
    /// nil when `blocked` is no live user; else whether the block is new and the follows removed.
    public static func block(_ db: PostgresConnection, blocker: Int64, blocked: Int64) throws -> (
        added: Bool, removed: [RemovedFollow]
    )? {
        let users = try lockPair(db, blocker, blocked)
        guard users[blocked] != nil else { return nil }
        let added =
            !(try db.execute(
                cached:
                    "INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1",
                [.int(blocker), .int(blocked)]
            ).isEmpty)
        let removed = try db.execute(
            cached: """
                DELETE FROM follows
                WHERE (follower_id = $1 AND followee_id = $2) OR (follower_id = $2 AND followee_id = $1)
                RETURNING follower_id, followee_id, state
                """, [.int(blocker), .int(blocked)]
        ).map {
            RemovedFollow(
                followerId: try $0.decode(column: 0), followeeId: try $0.decode(column: 1),
                wasActive: try $0.decode(String.self, column: 2) == "active")
        }
        for f in removed where f.wasActive {
            try adjustCounts(db, follower: f.followerId, followee: f.followeeId, by: -1)
        }
        return (added, removed)
    }

    /// Lifts a block; whether there was one.
    public static func unblock(_ db: PostgresConnection, blocker: Int64, blocked: Int64) throws -> Bool {
        !(try db.execute(
            cached: "DELETE FROM blocks WHERE blocker_id = $1 AND blocked_id = $2 RETURNING 1",
            [.int(blocker), .int(blocked)]
        ).isEmpty)
    }

    /// Mutes (`on`) or unmutes; whether anything changed.
    public static func setMute(_ db: PostgresConnection, muter: Int64, muted: Int64, on: Bool) throws -> Bool {
        if on {
            return
                !(try db.execute(
                    cached: "INSERT INTO mutes (muter_id, muted_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1",
                    [.int(muter), .int(muted)]
                ).isEmpty)
        }
        return
            !(try db.execute(
                cached: "DELETE FROM mutes WHERE muter_id = $1 AND muted_id = $2 RETURNING 1",
                [.int(muter), .int(muted)]
            ).isEmpty)
    }

    /// Whether `blocker` blocked `blocked` (this direction only; one primary-key probe).
    public static func isBlocking(_ db: PostgresConnection, blocker: Int64, blocked: Int64) throws -> Bool {
        !(try db.execute(
            cached: "SELECT 1 FROM blocks WHERE blocker_id = $1 AND blocked_id = $2", [.int(blocker), .int(blocked)]
        ).isEmpty)
    }

    /// Whether `user` is a live account (any, with or without a handle).
    public static func isLiveUser(_ db: PostgresConnection, _ user: Int64) throws -> Bool {
        !(try db.execute(cached: "SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL", [.int(user)]).isEmpty)
    }

    /// The live user with this handle (case-insensitively), or nil.
    public static func userId(_ db: PostgresConnection, handle: String) throws -> Int64? {
        guard Handle.isWellFormed(handle) else { return nil }
        return try db.execute(
            cached: "SELECT id FROM users WHERE lower(handle) = lower($1) AND deleted_at IS NULL", [.text(handle)]
        ).decodeFirst(Int64.self)
    }

    /// Whether another user holds this handle (case-insensitively; deleted accounts' handles are cleared).
    public static func handleTaken(_ db: PostgresConnection, _ handle: String, by other: Int64) throws -> Bool {
        !(try db.execute(
            cached: "SELECT 1 FROM users WHERE lower(handle) = lower($1) AND id <> $2", [.text(handle), .int(other)]
        ).isEmpty)
    }

    /// Sets `user`'s handle; false when another user holds it (the unique index decides under concurrency).
    public static func setHandle(_ db: PostgresConnection, _ user: Int64, _ handle: String) throws -> Bool {
        if try handleTaken(db, handle, by: user) { return false }
        do {
            try db.execute(cached: "SAVEPOINT set_handle")
            try db.execute(cached: "UPDATE users SET handle = $2 WHERE id = $1", [.int(user), .text(handle)])
            try db.execute(cached: "RELEASE SAVEPOINT set_handle")
            return true
        } catch let error as PostgresError where error.isUniqueViolation {
            try db.execute(cached: "ROLLBACK TO SAVEPOINT set_handle")
            return false
        }
    }

    /// A page of `social_user`s joined through a list table, newest first by the list's id (a follow id, or the
    /// row's position for blocks/mutes): the users and the cursor of the next page (nil at the end).
    public static func followPage(
        _ db: PostgresConnection, of user: Int64, followers: Bool, before: Int64?, limit: Int
    ) throws -> (users: [SocialUser], nextBefore: Int64?) {
        let sql =
            followers
            ? """
            SELECT f.id, u.id, u.display_name, u.handle, u.protected, u.avatar_photo_id
            FROM follows f JOIN users u ON u.id = f.follower_id
            WHERE f.followee_id = $1 AND f.state = 'active' AND f.id < $2 ORDER BY f.id DESC LIMIT $3
            """
            : """
            SELECT f.id, u.id, u.display_name, u.handle, u.protected, u.avatar_photo_id
            FROM follows f JOIN users u ON u.id = f.followee_id
            WHERE f.follower_id = $1 AND f.state = 'active' AND f.id < $2 ORDER BY f.id DESC LIMIT $3
            """
        return try page(
            db.execute(cached: sql, [.int(user), .int(before ?? Int64.max), .int(Int64(limit + 1))]), limit: limit)
    }

    /// The pending requests to `user`, newest first: (request id = follow id, requester, created_at).
    public static func requests(
        _ db: PostgresConnection, of user: Int64, before: Int64?, limit: Int
    ) throws -> (requests: [(id: Int64, user: SocialUser, createdAt: String)], nextBefore: Int64?) {
        let rows = try db.execute(
            cached: """
                SELECT f.id, u.id, u.display_name, u.handle, u.protected, \(WireTimestamp.sql("f.created_at")),
                       u.avatar_photo_id
                FROM follows f
                JOIN users u ON u.id = f.follower_id
                WHERE f.followee_id = $1 AND f.state = 'pending' AND f.id < $2 ORDER BY f.id DESC LIMIT $3
                """, [.int(user), .int(before ?? Int64.max), .int(Int64(limit + 1))])
        var result: [(id: Int64, user: SocialUser, createdAt: String)] = []
        for r in rows.prefix(limit) {
            let user = SocialUser(
                userId: try r.decode(column: 1), displayName: try r.decode(column: 2), handle: try r.decode(column: 3),
                protected: try r.decode(column: 4),
                avatarPhotoId: try r.decode(column: 6))
            result.append((try r.decode(Int64.self, column: 0), user, try r.decode(String.self, column: 5)))
        }
        return (result, rows.count > limit ? result.last?.id : nil)
    }

    /// `user`'s blocks or mutes, by the other user's id descending (the tables have no id of their own): `before`
    /// and `next_before` are user ids.
    public static func blockOrMutePage(
        _ db: PostgresConnection, of user: Int64, mutes: Bool, before: Int64?, limit: Int
    ) throws -> (users: [SocialUser], nextBefore: Int64?) {
        let sql =
            mutes
            ? """
            SELECT u.id, u.id, u.display_name, u.handle, u.protected, u.avatar_photo_id
            FROM mutes m JOIN users u ON u.id = m.muted_id
            WHERE m.muter_id = $1 AND m.muted_id < $2 ORDER BY m.muted_id DESC LIMIT $3
            """
            : """
            SELECT u.id, u.id, u.display_name, u.handle, u.protected, u.avatar_photo_id
            FROM blocks b JOIN users u ON u.id = b.blocked_id
            WHERE b.blocker_id = $1 AND b.blocked_id < $2 ORDER BY b.blocked_id DESC LIMIT $3
            """
        return try page(
            db.execute(cached: sql, [.int(user), .int(before ?? Int64.max), .int(Int64(limit + 1))]), limit: limit)
    }

    /// Rows of (cursor, id, display_name, handle, protected, avatar_photo_id), one more than `limit` asked for.
    static func page(_ rows: PostgresRows, limit: Int) throws -> (users: [SocialUser], nextBefore: Int64?) {
        var users: [SocialUser] = []
        var last: Int64?
        for r in rows.prefix(limit) {
            last = try r.decode(Int64.self, column: 0)
            users.append(
                SocialUser(
                    userId: try r.decode(column: 1), displayName: try r.decode(column: 2),
                    handle: try r.decode(column: 3), protected: try r.decode(column: 4),
                    avatarPhotoId: try r.decode(column: 5)))
        }
        return (users, rows.count > limit ? last : nil)
    }
}

extension SocialGraphRepository {
    /// Applies the social fields of `profile.update` (the caller's transaction holds `user`'s row lock); turning
    /// `protected` off approves every pending request: the approved followers' ids.
    public static func updateSocialProfile(_ db: PostgresConnection, of user: Int64, _ change: SocialProfileChange)
        throws -> [Int64]
    {
        guard !change.isEmpty else { return [] }
        let wasProtected =
            try db.execute(cached: "SELECT protected FROM users WHERE id = $1 FOR NO KEY UPDATE", [.int(user)])
            .decodeFirst(Bool.self) ?? false
        try db.execute(
            cached: """
                UPDATE users SET bio = coalesce($2::text, bio), protected = coalesce($3::boolean, protected),
                dm_policy = coalesce($4::text, dm_policy) WHERE id = $1
                """,
            [
                .int(user), change.bio.map(PostgresData.text), change.protected.map(PostgresData.bool),
                change.dmPolicy.map(PostgresData.text),
            ])
        guard wasProtected, change.protected == false else { return [] }
        return try approveAll(db, followee: user)
    }
}

/// Account deletion's social steps (`AccountDeletionRepository.runBatch`).
extension SocialGraphRepository {
    /// Removes up to `limit` follows of or by `userId` (pending too), decrementing the other users' counters for
    /// the active ones (their rows locked in id order first); the number removed.
    public static func deleteFollows(_ db: PostgresConnection, userId: Int64, limit: Int) throws -> Int {
        let picked = try db.execute(
            cached: """
                (SELECT follower_id, followee_id FROM follows WHERE follower_id = $1 LIMIT $2)
                UNION ALL (SELECT follower_id, followee_id FROM follows WHERE followee_id = $1 LIMIT $2)
                """, [.int(userId), .int(Int64(limit))]
        ).map { (try $0.decode(Int64.self, column: 0), try $0.decode(Int64.self, column: 1)) }
        guard !picked.isEmpty else { return 0 }
        let others = Set(picked.map { $0.0 == userId ? $0.1 : $0.0 }).sorted()
        try db.execute(
            cached: "SELECT id FROM users WHERE id = ANY($1::bigint[]) ORDER BY id FOR NO KEY UPDATE",
            [.text(FriendRepository.bigintArray(others))])
        let removed = try db.execute(
            cached: """
                DELETE FROM follows f USING unnest($1::bigint[], $2::bigint[]) AS p(a, b)
                WHERE f.follower_id = p.a AND f.followee_id = p.b RETURNING f.follower_id, f.followee_id, f.state
                """,
            [
                .text(FriendRepository.bigintArray(picked.map(\.0))),
                .text(FriendRepository.bigintArray(picked.map(\.1))),
            ]
        ).map {
            (
                try $0.decode(Int64.self, column: 0), try $0.decode(Int64.self, column: 1),
                try $0.decode(String.self, column: 2)
            )
        }
        var lostFollowers: [Int64: Int64] = [:]
        var lostFollowing: [Int64: Int64] = [:]
        for (follower, followee, state) in removed where state == FollowState.active.rawValue {
            if follower == userId {
                lostFollowers[followee, default: 0] += 1
            } else {
                lostFollowing[follower, default: 0] += 1
            }
        }
        for id in Set(lostFollowers.keys).union(lostFollowing.keys).sorted() {
            try db.execute(
                cached: """
                    UPDATE users SET follower_count = greatest(0, follower_count - $2),
                                     following_count = greatest(0, following_count - $3)
                    WHERE id = $1
                    """, [.int(id), .int(lostFollowers[id] ?? 0), .int(lostFollowing[id] ?? 0)])
        }
        return removed.count
    }

    /// Marks up to `limit` of `userId`'s live posts deleted, with others' live reposts of them, as `post.delete` does:
    /// text cleared, the parents' reply counts, the originals' repost counts and the authors' post counts decremented,
    /// and each deletion stamped from `post_clock` as the transaction's LAST statement. The posts marked (for LIVE's
    /// `postDeleted` after the commit).
    public static func deletePosts(_ db: PostgresConnection, userId: Int64, limit: Int) throws -> [DeletedPost] {
        let own = try db.execute(
            cached: "SELECT id FROM posts WHERE author_id = $1 AND deleted_at IS NULL ORDER BY id LIMIT $2",
            [.int(userId), .int(Int64(limit))]
        ).map { try $0.decode(Int64.self, column: 0) }
        guard !own.isEmpty else { return [] }
        let reposts = try db.execute(
            cached: "SELECT id FROM posts WHERE repost_of = ANY($1::bigint[]) AND deleted_at IS NULL ORDER BY id",
            [.text(FriendRepository.bigintArray(own))]
        ).map { try $0.decode(Int64.self, column: 0) }
        let ids = own + reposts
        let rows = try db.execute(
            cached: """
                UPDATE posts SET deleted_at = now(), text = '' WHERE id = ANY($1::bigint[]) AND deleted_at IS NULL
                RETURNING id, author_id, reply_to, repost_of, thread_root
                """, [.text(FriendRepository.bigintArray(ids))]
        ).map {
            (
                id: try $0.decode(Int64.self, column: 0), author: try $0.decode(Int64.self, column: 1),
                replyTo: try $0.decode(Int64?.self, column: 2),
                repostOf: try $0.decode(Int64?.self, column: 3), threadRoot: try $0.decode(Int64?.self, column: 4)
            )
        }
        guard !rows.isEmpty else { return [] }
        var byAuthor: [Int64: Int64] = [:]
        var byParent: [Int64: Int64] = [:]
        var byOriginal: [Int64: Int64] = [:]
        for r in rows {
            byAuthor[r.author, default: 0] += 1
            if let p = r.replyTo { byParent[p, default: 0] += 1 }
            if let o = r.repostOf { byOriginal[o, default: 0] += 1 }
        }
        for (author, n) in byAuthor.sorted(by: { $0.key < $1.key }) {
            try db.execute(
                cached: "UPDATE users SET post_count = greatest(0, post_count - $2) WHERE id = $1",
                [.int(author), .int(n)])
        }
        for (parent, n) in byParent.sorted(by: { $0.key < $1.key }) {
            try db.execute(
                cached: "UPDATE posts SET reply_count = greatest(0, reply_count - $2) WHERE id = $1",
                [.int(parent), .int(n)])
        }
        for (original, n) in byOriginal.sorted(by: { $0.key < $1.key }) {
            try db.execute(
                cached: "UPDATE posts SET repost_count = greatest(0, repost_count - $2) WHERE id = $1",
                [.int(original), .int(n)])
        }
        let order = ids.filter { id in rows.contains { $0.id == id } }
        // LAST: one seq each, in order (seq order = commit order).
        var seqs: [Int64: Int64] = [:]
        for r in try db.execute(
            cached: """
                WITH c AS (UPDATE post_clock SET seq = seq + cardinality($1::bigint[]) RETURNING seq),
                d AS (SELECT id, ord FROM unnest($1::bigint[]) WITH ORDINALITY AS t(id, ord))
                UPDATE posts p SET deleted_seq = c.seq - cardinality($1::bigint[]) + d.ord FROM c, d WHERE p.id = d.id
                RETURNING p.id, p.deleted_seq
                """, [.text(FriendRepository.bigintArray(order))])
        {
            seqs[try r.decode(Int64.self, column: 0)] = try r.decode(Int64.self, column: 1)
        }
        return order.compactMap { id in
            guard let row = rows.first(where: { $0.id == id }), let seq = seqs[id] else { return nil }
            return DeletedPost(postId: id, authorId: row.author, threadRoot: row.threadRoot, seq: seq)
        }
    }

    /// A post marked deleted by the deletion job.
    public struct DeletedPost: Sendable, Equatable {
        public var postId: Int64
        public var authorId: Int64
        public var threadRoot: Int64?
        public var seq: Int64
    }
}

extension SocialGraphRepository {
    /// Everything social of `userId` for its export (live posts only; deleted ones have no text left).
    public static func export(_ db: PostgresConnection, userId: Int64) throws -> ExportedSocial {
        let u = PostgresData.int(userId)
        guard
            let me = try db.execute(cached: "SELECT handle, bio, protected, dm_policy FROM users WHERE id = $1", [u])
                .first
        else {
            throw ServiceError(.notFound, "no such user")
        }
        func users(_ sql: String) throws -> [SocialUser] {
            try db.execute(cached: "SELECT u.id, u.display_name, u.handle, u.protected FROM \(sql) ORDER BY u.id", [u])
                .decode(SocialUser.self)
        }
        let posts = try db.execute(
            cached: """
                SELECT id, seq, text, \(WireTimestamp.sql("created_at")), reply_to, repost_of, voice_clip_id,
                       like_count, repost_count, reply_count
                FROM posts WHERE author_id = $1 AND deleted_at IS NULL ORDER BY seq
                """, [u]
        ).map { r in
            ExportedSocial.Post(
                postId: try r.decode(column: 0), seq: try r.decode(column: 1), text: try r.decode(column: 2),
                createdAt: try r.decode(column: 3),
                replyTo: try r.decode(column: 4), repostOf: try r.decode(column: 5),
                voiceClipId: try r.decode(column: 6),
                likeCount: try r.decode(column: 7), repostCount: try r.decode(column: 8),
                replyCount: try r.decode(column: 9))
        }
        let likes = try db.execute(
            cached: "SELECT post_id, \(WireTimestamp.sql("created_at")) FROM likes WHERE user_id = $1 ORDER BY id", [u]
        ).map { ExportedSocial.Like(postId: try $0.decode(column: 0), createdAt: try $0.decode(column: 1)) }
        return ExportedSocial(
            handle: try me.decode(column: 0), bio: try me.decode(column: 1), protected: try me.decode(column: 2),
            dmPolicy: try me.decode(column: 3),
            following: try users(
                "follows f JOIN users u ON u.id = f.followee_id WHERE f.follower_id = $1 AND f.state = 'active'"),
            followers: try users(
                "follows f JOIN users u ON u.id = f.follower_id WHERE f.followee_id = $1 AND f.state = 'active'"),
            requested: try users(
                "follows f JOIN users u ON u.id = f.followee_id WHERE f.follower_id = $1 AND f.state = 'pending'"),
            requests: try users(
                "follows f JOIN users u ON u.id = f.follower_id WHERE f.followee_id = $1 AND f.state = 'pending'"),
            posts: posts, likes: likes,
            blocks: try users("blocks b JOIN users u ON u.id = b.blocked_id WHERE b.blocker_id = $1"),
            mutes: try users("mutes m JOIN users u ON u.id = m.muted_id WHERE m.muter_id = $1"))
    }
}
