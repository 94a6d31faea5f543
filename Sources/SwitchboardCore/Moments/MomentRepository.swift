//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// Moments (up to 9 photos and a caption shared with friends), their likes, and the photo rows the ops show
/// (docs/protocol.md, "Moments" and "Photos and avatars"; migration 13). Who may see a moment: its owner, and the
/// owner's friends while neither blocked the other (`visible`), the same rule as `PhotoAccess` rule 2.
public enum MomentRepository {
    // MARK: Photos

    static let photoColumns =
        "ph.id, ph.width, ph.height, ph.color, ph.has_alpha, \(WireTimestamp.sql("ph.created_at"))"

    static func photo(_ r: PostgresRow, from c: Int = 0) throws(PostgresDecodingError) -> Photo {
        Photo(
            photoId: try r.decode(column: c), width: try r.decode(column: c + 1), height: try r.decode(column: c + 2),
            color: try r.decode(column: c + 3), hasAlpha: try r.decode(column: c + 4),
            createdAt: try r.decode(column: c + 5))
    }

    /// The photos of `ids` (missing ones absent), by id. Visibility is the caller's.
    public static func photos(_ db: PostgresConnection, ids: [Int64]) throws -> [Int64: Photo] {
        guard !ids.isEmpty else { return [:] }
        var out: [Int64: Photo] = [:]
        for r in try db.execute(
            cached: "SELECT \(photoColumns) FROM photos ph WHERE ph.id = ANY($1::bigint[])",
            [.text(MessageStore.bigintArray(ids))])
        {
            let p = try photo(r)
            out[p.photoId] = p
        }
        return out
    }

    /// `photos.mine`: `owner`'s photos older than `before`, newest first, at most `limit`.
    public static func mine(_ db: PostgresConnection, owner: Int64, before: Int64?, limit: Int) throws -> [Photo] {
        try db.execute(
            cached:
                "SELECT \(photoColumns) FROM photos ph WHERE ph.owner_id = $1 AND ph.id < $2"
                + " ORDER BY ph.id DESC LIMIT $3",
            [.int(owner), .int(before ?? Int64.max), .int(Int64(limit))]
        ).map { r throws(PostgresDecodingError) in try photo(r) }
    }

    /// Checks that `ids` are distinct photos of `owner`'s, locking them (`FOR KEY SHARE`: a concurrent
    /// `photos.delete` waits for this transaction, or commits first and this one answers `not_found`).
    /// - Throws: `bad_request` for a repeated id, `not_found` when one is missing or someone else's.
    public static func requireOwnPhotos(_ db: PostgresConnection, owner: Int64, ids: [Int64]) throws {
        guard Set(ids).count == ids.count else { throw MomentError.duplicatePhotos }
        guard !ids.isEmpty else { return }
        let found = try db.execute(
            cached: "SELECT id FROM photos WHERE owner_id = $1 AND id = ANY($2::bigint[]) FOR KEY SHARE",
            [.int(owner), .text(MessageStore.bigintArray(ids))]
        ).count
        guard found == ids.count else { throw MomentError.noSuchPhoto }
    }

    /// `user`'s avatar photo, or nil.
    public static func avatar(_ db: PostgresConnection, of user: Int64) throws -> Photo? {
        guard
            let r = try db.execute(
                cached:
                    "SELECT \(photoColumns) FROM users u JOIN photos ph ON ph.id = u.avatar_photo_id WHERE u.id = $1",
                [.int(user)]
            ).first
        else { return nil }
        return try photo(r)
    }

    /// The photos of `postIds`, in order, by post id (posts without photos absent).
    public static func postPhotos(_ db: PostgresConnection, postIds: [Int64]) throws -> [Int64: [Photo]] {
        guard !postIds.isEmpty else { return [:] }
        var out: [Int64: [Photo]] = [:]
        for r in try db.execute(
            cached: """
                SELECT pp.post_id, \(photoColumns) FROM post_photos pp JOIN photos ph ON ph.id = pp.photo_id
                WHERE pp.post_id = ANY($1::bigint[]) ORDER BY pp.post_id, pp.position
                """, [.text(MessageStore.bigintArray(postIds))])
        {
            out[try r.decode(column: 0), default: []].append(try photo(r, from: 1))
        }
        return out
    }

    /// Attaches `photoIds` (checked: distinct, `author`'s) to the new post `postId`, in order.
    public static func attachToPost(_ db: PostgresConnection, postId: Int64, author: Int64, photoIds: [Int64]) throws {
        try requireOwnPhotos(db, owner: author, ids: photoIds)
        for (position, id) in photoIds.enumerated() {
            try db.execute(
                cached: "INSERT INTO post_photos (post_id, position, photo_id) VALUES ($1, $2, $3)",
                [.int(postId), .int(Int64(position)), .int(id)])
        }
    }

    // MARK: Moments

    /// The SQL condition "`viewer` may see the moments of `owner`": the owner, or a friend neither blocked.
    public static func visible(viewer: String, owner: String) -> String {
        """
        (\(owner) = \(viewer) OR (EXISTS (SELECT 1 FROM friendships vf
                                          WHERE vf.user_low = least(\(owner), \(viewer)::bigint)
                                            AND vf.user_high = greatest(\(owner), \(viewer)::bigint))
          AND NOT EXISTS (SELECT 1 FROM blocks vb WHERE (vb.blocker_id = \(viewer) AND vb.blocked_id = \(owner))
                                                   OR (vb.blocker_id = \(owner) AND vb.blocked_id = \(viewer)))))
        """
    }

    /// The owner of moment `id` when `viewer` may see it, else nil (missing, or not a friend's). `lock` takes the
    /// moment's key-share lock (a like row may then reference it: a deletion waits).
    public static func visibleOwner(_ db: PostgresConnection, id: Int64, viewer: Int64, lock: Bool = false) throws
        -> Int64?
    {
        let sql =
            lock
            ? "SELECT m.owner_id FROM moments m WHERE m.id = $1 AND \(visible(viewer: "$2", owner: "m.owner_id"))"
                + " FOR KEY SHARE OF m"
            : "SELECT m.owner_id FROM moments m WHERE m.id = $1 AND \(visible(viewer: "$2", owner: "m.owner_id"))"
        return try db.execute(cached: sql, [.int(id), .int(viewer)]).decodeFirst(Int64.self)
    }

    /// `moments.create`: a moment of `owner`'s photos (checked) with `caption`, or for a resent `clientId` the
    /// existing one (`created` false).
    public static func create(
        _ db: PostgresConnection, owner: Int64, photoIds: [Int64], caption: String, clientId: String?
    ) throws -> (momentId: Int64, created: Bool) {
        if let clientId {
            // Two resends wait for each other here; the second then sees the first's row.
            try db.execute(
                cached:
                    "SELECT pg_advisory_xact_lock(hashtextextended('moment.client_id:' || $1::text || ':' || $2, 0))",
                [.int(owner), .text(clientId)])
            if let existing = try db.execute(
                cached: "SELECT id FROM moments WHERE owner_id = $1 AND client_id = $2", [.int(owner), .text(clientId)]
            ).decodeFirst(Int64.self) {
                return (existing, false)
            }
        }
        try requireOwnPhotos(db, owner: owner, ids: photoIds)
        guard
            let id = try db.execute(
                cached: "INSERT INTO moments (owner_id, caption, client_id) VALUES ($1, $2, $3) RETURNING id",
                [.int(owner), .text(caption), clientId.map { .text($0) }]
            ).decodeFirst(Int64.self)
        else { throw MomentError.notStored }
        for (position, photo) in photoIds.enumerated() {
            try db.execute(
                cached: "INSERT INTO moment_photos (moment_id, position, photo_id) VALUES ($1, $2, $3)",
                [.int(id), .int(Int64(position)), .int(photo)])
        }
        return (id, true)
    }

    /// `moments.feed`: the ids of `viewer`'s and `viewer`'s friends' moments (no block either way) older than
    /// `before`, newest first, at most `limit`. Merged on read like the home timeline: one index probe per owner
    /// (`moments_by_owner`, at most `limit` rows each), so the cost grows with the number of friends, not with how
    /// many moments they ever shared.
    public static func feed(_ db: PostgresConnection, viewer: Int64, before: Int64?, limit: Int) throws -> [Int64] {
        try db.execute(
            cached: """
                SELECT x.id FROM unnest(ARRAY(
                        SELECT $1::bigint
                        UNION ALL
                        SELECT CASE WHEN f.user_low = $1 THEN f.user_high ELSE f.user_low END FROM friendships f
                        WHERE (f.user_low = $1 OR f.user_high = $1)
                          AND NOT EXISTS (SELECT 1 FROM blocks b
                                          WHERE (b.blocker_id = $1
                                                 AND b.blocked_id = CASE WHEN f.user_low = $1 THEN f.user_high
                                                                         ELSE f.user_low END)
                                             OR (b.blocked_id = $1
                                                 AND b.blocker_id = CASE WHEN f.user_low = $1 THEN f.user_high
                                                                         ELSE f.user_low END)))
                    ) AS o(owner_id)
                CROSS JOIN LATERAL (
                    SELECT m.id FROM moments m WHERE m.owner_id = o.owner_id AND m.id < $2
                    ORDER BY m.id DESC LIMIT $3) x
                ORDER BY x.id DESC LIMIT $3
                """, [.int(viewer), .int(before ?? Int64.max), .int(Int64(limit))]
        ).decode(Int64.self, column: 0)
    }

    /// The moments of `ids` as `viewer` sees them (photos in order, `liked`, up to 3 recent likers newest first,
    /// likers blocked either way by the viewer left out), in the order of `ids`; missing ones left out.
    /// Visibility is the caller's.
    public static func moments(_ db: PostgresConnection, ids: [Int64], viewer: Int64) throws -> [Moment] {
        guard !ids.isEmpty else { return [] }
        let array = PostgresData.text(MessageStore.bigintArray(ids))
        struct Row {
            var owner: Int64
            var caption: String
            var likeCount: Int64
            var createdAt: String
        }
        var rows: [Int64: Row] = [:]
        for r in try db.execute(
            cached:
                "SELECT id, owner_id, caption, like_count, \(WireTimestamp.sql("created_at")) FROM moments"
                + " WHERE id = ANY($1::bigint[])",
            [array])
        {
            rows[try r.decode(column: 0)] = Row(
                owner: try r.decode(column: 1), caption: try r.decode(column: 2), likeCount: try r.decode(column: 3),
                createdAt: try r.decode(column: 4))
        }
        var photos: [Int64: [Photo]] = [:]
        for r in try db.execute(
            cached: """
                SELECT mp.moment_id, \(photoColumns) FROM moment_photos mp JOIN photos ph ON ph.id = mp.photo_id
                WHERE mp.moment_id = ANY($1::bigint[]) ORDER BY mp.moment_id, mp.position
                """, [array])
        {
            photos[try r.decode(column: 0), default: []].append(try photo(r, from: 1))
        }
        let liked = Set(
            try db.execute(
                cached: "SELECT moment_id FROM moment_likes WHERE user_id = $1 AND moment_id = ANY($2::bigint[])",
                [.int(viewer), array]
            )
            .decode(Int64.self, column: 0))
        var recent: [Int64: [Int64]] = [:]
        for r in try db.execute(
            cached: """
                SELECT x.id, l.user_id FROM unnest($1::bigint[]) AS x(id)
                CROSS JOIN LATERAL (
                    SELECT ml.user_id FROM moment_likes ml JOIN users u ON u.id = ml.user_id
                    WHERE ml.moment_id = x.id AND u.deleted_at IS NULL
                      AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = $2 AND b.blocked_id = ml.user_id)
                                                              OR (b.blocker_id = ml.user_id AND b.blocked_id = $2))
                    ORDER BY ml.created_at DESC, ml.user_id DESC LIMIT 3) l
                """, [array, .int(viewer)])
        {
            recent[try r.decode(column: 0), default: []].append(try r.decode(column: 1))
        }
        var userIds = Set(rows.values.map(\.owner))
        for list in recent.values { userIds.formUnion(list) }
        let users = try SocialGraphRepository.socialUsers(db, ids: Array(userIds))
        return ids.compactMap { id in
            guard let row = rows[id], let owner = users[row.owner] else { return nil }
            return Moment(
                momentId: id, owner: owner, caption: row.caption, photos: photos[id] ?? [], likeCount: row.likeCount,
                liked: liked.contains(id),
                recentLikers: (recent[id] ?? []).compactMap { users[$0] }, createdAt: row.createdAt)
        }
    }

    /// `moments.delete`: deletes `owner`'s moment for real (its photo links and likes cascade).
    /// - Throws: `not_found` when it is missing or someone else's.
    public static func delete(_ db: PostgresConnection, owner: Int64, momentId: Int64) throws {
        guard
            try !db.execute(
                cached: "DELETE FROM moments WHERE id = $1 AND owner_id = $2 RETURNING id",
                [.int(momentId), .int(owner)]
            ).isEmpty
        else { throw MomentError.notFound }
    }

    /// `moments.like`/`moments.unlike` by `user`: the exact count after the change (the moment's row lock orders
    /// concurrent likes), whether the like changed anything, and the moment's owner.
    /// - Throws: `not_found` when `user` may not see the moment.
    public static func setLike(_ db: PostgresConnection, user: Int64, momentId: Int64, liked: Bool) throws -> (
        likeCount: Int64, changed: Bool, ownerId: Int64
    ) {
        guard let owner = try visibleOwner(db, id: momentId, viewer: user, lock: true) else {
            throw MomentError.notFound
        }
        let changed: Bool
        if liked {
            changed = try !db.execute(
                cached:
                    "INSERT INTO moment_likes (moment_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1",
                [.int(momentId), .int(user)]
            ).isEmpty
        } else {
            changed = try !db.execute(
                cached: "DELETE FROM moment_likes WHERE moment_id = $1 AND user_id = $2 RETURNING 1",
                [.int(momentId), .int(user)]
            ).isEmpty
        }
        let sql =
            changed
            ? (liked
                ? "UPDATE moments SET like_count = like_count + 1 WHERE id = $1 RETURNING like_count"
                : "UPDATE moments SET like_count = greatest(0, like_count - 1) WHERE id = $1 RETURNING like_count")
            : "SELECT like_count FROM moments WHERE id = $1"
        guard let count = try db.execute(cached: sql, [.int(momentId)]).decodeFirst(Int64.self) else {
            throw MomentError.notFound
        }
        return (count, changed, owner)
    }

    /// `moments.likers`: who liked `momentId`, newest like first, without users blocked either way by `viewer`;
    /// each with its cursor (`<microseconds since 1970>.<user id>`).
    public static func likers(
        _ db: PostgresConnection, momentId: Int64, viewer: Int64, before: (micros: Int64, userId: Int64)?, limit: Int
    ) throws -> [(cursor: String, user: SocialUser)] {
        try db.execute(
            cached: """
                SELECT (extract(epoch FROM l.created_at) * 1000000)::bigint AS t, u.id, u.display_name, u.handle,
                       u.protected, u.avatar_photo_id
                FROM moment_likes l JOIN users u ON u.id = l.user_id
                WHERE l.moment_id = $1 AND u.deleted_at IS NULL
                  AND ($2::bigint IS NULL
                       OR ((extract(epoch FROM l.created_at) * 1000000)::bigint, l.user_id) < ($2::bigint, $3::bigint))
                  AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = $4 AND b.blocked_id = u.id)
                                                            OR (b.blocker_id = u.id AND b.blocked_id = $4))
                ORDER BY l.created_at DESC, l.user_id DESC LIMIT $5
                """,
            [
                .int(momentId), before.map { .int($0.micros) }, .int(before?.userId ?? 0), .int(viewer),
                .int(Int64(limit)),
            ]
        ).map { r throws(PostgresDecodingError) in
            let t: Int64 = try r.decode(column: 0)
            let user = SocialUser(
                userId: try r.decode(column: 1), displayName: try r.decode(column: 2), handle: try r.decode(column: 3),
                protected: try r.decode(column: 4),
                avatarPhotoId: try r.decode(column: 5))
            return ("\(t).\(user.userId)", user)
        }
    }

    /// Parses a `moments.likers` cursor, or nil when malformed.
    public static func likersCursor(_ text: String) -> (micros: Int64, userId: Int64)? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let t = Int64(parts[0]), let u = Int64(parts[1]) else { return nil }
        return (t, u)
    }

    /// Who sees `owner`'s moments live: `owner` and the friends neither blocked (the moment events' recipients).
    public static func audience(_ db: PostgresConnection, of owner: Int64) throws -> [Int64] {
        [owner]
            + (try db.execute(
                cached: """
                    SELECT x.id FROM (SELECT CASE WHEN user_low = $1 THEN user_high ELSE user_low END AS id
                                      FROM friendships
                                      WHERE user_low = $1 OR user_high = $1) x
                    WHERE NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = $1 AND b.blocked_id = x.id)
                                                              OR (b.blocker_id = x.id AND b.blocked_id = $1))
                    """, [.int(owner)]
            ).decode(Int64.self, column: 0))
    }
}
