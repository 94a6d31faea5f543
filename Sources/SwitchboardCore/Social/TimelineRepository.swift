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

/// The SQL of the timelines (issue 18; docs/social.md "Timelines: storage and ordering"). Every page runs in one
/// REPEATABLE READ transaction that reads `post_clock` first (`snapshot`), so the page and its `after` come from the
/// same snapshot: since seqs are stamped in commit order, "newer than after" never skips a post.
///
/// The home timeline is merged on read: no fan-out rows. For each author the viewer sees on home (the viewer and
/// the active followees, minus muted users) one LATERAL range scan of `posts_by_author (author_id, seq DESC)` takes
/// at most `limit + 1` posts past the cursor; the union is sorted and cut. A post by an account with 100,000
/// followers is one insert.
public enum TimelineRepository {
    /// Where a page starts: older than `before` (nil: the newest), or newer than `after`.
    public enum Cursor: Sendable, Equatable {
        case before(Int64?)
        case after(Int64)
    }

    /// Makes the caller's transaction REPEATABLE READ (the first statement of it) and returns the post clock of its
    /// snapshot.
    public static func snapshot(_ db: PostgresConnection) throws -> Int64 {
        try db.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        return try db.execute(cached: "SELECT seq FROM post_clock").decodeFirst(Int64.self) ?? 0
    }

    /// The bounds and order of a cursor: seq > lo AND seq < hi, newest first for `before`, oldest first for `after`.
    static func bounds(_ cursor: Cursor) -> (lo: Int64, hi: Int64, order: String) {
        switch cursor {
        case .before(let before): return (0, before ?? Int64.max, "DESC")
        case .after(let after): return (after, Int64.max, "ASC")
        }
    }

    /// "`p`'s original is live and `$viewer` may see it" for reposts (always true for other posts).
    static func originalVisible(viewer: String, excludingAuthorsIn excluded: String? = nil) -> String {
        let muted = excluded.map { " AND o.author_id NOT IN (\($0))" } ?? ""
        return """
            (p.repost_of IS NULL
             OR EXISTS (SELECT 1 FROM posts o WHERE o.id = p.repost_of AND o.deleted_at IS NULL\(muted)
              AND \(PostRepository.visible(viewer: viewer, author: "o.author_id"))))
            """
    }

    /// Turns (id, seq) rows read for `cursor` with `limit + 1` into a page.
    static func page(
        _ db: PostgresConnection, rows: [(id: Int64, seq: Int64)], cursor: Cursor, limit: Int, clock: Int64,
        viewer: Int64
    ) throws -> PostPage {
        let more = rows.count > limit
        var taken = Array(rows.prefix(limit))
        let after: Int64
        switch cursor {
        case .before(let before):
            after = before == nil ? clock : (taken.first?.seq ?? (before ?? 1) - 1)
        case .after:
            after = more ? (taken.last?.seq ?? clock) : clock
            taken.reverse()
        }
        let posts = try PostRepository.ordered(db, ids: taken.map(\.id), viewer: viewer)
        let before: Int64?
        switch cursor {
        case .before: before = more ? taken.last?.seq : nil
        case .after: before = taken.last?.seq
        }
        return PostPage(posts: posts, before: before, after: after)
    }

    static func idSeq(_ rows: PostgresRows) throws -> [(id: Int64, seq: Int64)] {
        try rows.map { r throws(PostgresDecodingError) in (try r.decode(column: 0), try r.decode(column: 1)) }
    }

    /// `timeline.home`: the viewer's own posts and replies, the posts and reposts of the active followees (replies
    /// only to the viewer or an active followee), without muted users' posts and reposts and reposts of their posts,
    /// without reposts of posts the viewer may not see.
    public static func home(_ db: PostgresConnection, viewer: Int64, cursor: Cursor, limit: Int) throws -> PostPage {
        let clock = try snapshot(db)
        let (lo, hi, order) = bounds(cursor)
        // One statement: the followees and mutes are read inside it (two round trips fewer than passing them in),
        // then one index-only range scan per author of the covering `posts_by_author` (migration 12).
        let rows = try db.execute(
            cached: """
                WITH f AS MATERIALIZED (SELECT followee_id AS id FROM follows
                                        WHERE follower_id = $1 AND state = 'active'),
                     m AS MATERIALIZED (SELECT muted_id AS id FROM mutes WHERE muter_id = $1)
                SELECT p.id, p.seq
                FROM (SELECT $1::bigint AS id UNION ALL SELECT id FROM f WHERE id NOT IN (SELECT id FROM m)) a
                CROSS JOIN LATERAL (
                  SELECT p.id, p.seq FROM posts p
                  WHERE p.author_id = a.id AND p.deleted_at IS NULL AND p.seq > $2 AND p.seq < $3
                    AND (p.reply_to IS NULL OR p.author_id = $1 OR p.reply_to_user = $1
                         OR p.reply_to_user IN (SELECT id FROM f))
                    AND \(originalVisible(viewer: "$1", excludingAuthorsIn: "SELECT id FROM m"))
                  ORDER BY p.seq \(order) LIMIT $4
                ) p ORDER BY p.seq \(order) LIMIT $4
                """,
            [.int(viewer), .int(lo), .int(hi), .int(Int64(limit + 1))])
        return try page(db, rows: try idSeq(rows), cursor: cursor, limit: limit, clock: clock, viewer: viewer)
    }

    /// `timeline.user`: `author`'s posts and reposts (and replies with `replies`), as `viewer` sees them; the caller
    /// checked that `viewer` may see `author`'s posts, after taking the snapshot (`clock`, from `snapshot`).
    public static func user(
        _ db: PostgresConnection, viewer: Int64, author: Int64, replies: Bool, cursor: Cursor, limit: Int, clock: Int64
    ) throws -> PostPage {
        let (lo, hi, order) = bounds(cursor)
        let rows = try db.execute(
            cached: """
                SELECT p.id, p.seq FROM posts p
                WHERE p.author_id = $1 AND p.deleted_at IS NULL AND ($2::bool OR p.reply_to IS NULL)
                  AND p.seq > $4 AND p.seq < $5
                  AND \(originalVisible(viewer: "$3"))
                ORDER BY p.seq \(order) LIMIT $6
                """, [.int(author), .bool(replies), .int(viewer), .int(lo), .int(hi), .int(Int64(limit + 1))])
        return try page(db, rows: try idSeq(rows), cursor: cursor, limit: limit, clock: clock, viewer: viewer)
    }

    /// `timeline.mentions`: live posts mentioning `viewer` by authors it may see and does not mute.
    public static func mentions(_ db: PostgresConnection, viewer: Int64, cursor: Cursor, limit: Int) throws -> PostPage
    {
        let clock = try snapshot(db)
        let (lo, hi, order) = bounds(cursor)
        let rows = try db.execute(
            cached: """
                SELECT p.id, m.seq FROM post_mentions m JOIN posts p ON p.id = m.post_id
                WHERE m.user_id = $1 AND m.seq > $2 AND m.seq < $3 AND p.deleted_at IS NULL
                  AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.muter_id = $1 AND mu.muted_id = p.author_id)
                  AND \(PostRepository.visible(viewer: "$1", author: "p.author_id"))
                ORDER BY m.seq \(order) LIMIT $4
                """, [.int(viewer), .int(lo), .int(hi), .int(Int64(limit + 1))])
        return try page(db, rows: try idSeq(rows), cursor: cursor, limit: limit, clock: clock, viewer: viewer)
    }

    /// `timeline.hashtag`: live posts with `tag` (normalized) that `viewer` may see.
    public static func hashtag(_ db: PostgresConnection, viewer: Int64, tag: String, cursor: Cursor, limit: Int) throws
        -> PostPage
    {
        let clock = try snapshot(db)
        let (lo, hi, order) = bounds(cursor)
        let rows = try db.execute(
            cached: """
                SELECT p.id, h.seq FROM post_hashtags h JOIN posts p ON p.id = h.post_id
                WHERE h.tag = $1 AND h.seq > $3 AND h.seq < $4 AND p.deleted_at IS NULL
                  AND \(PostRepository.visible(viewer: "$2", author: "p.author_id"))
                ORDER BY h.seq \(order) LIMIT $5
                """, [.text(tag), .int(viewer), .int(lo), .int(hi), .int(Int64(limit + 1))])
        return try page(db, rows: try idSeq(rows), cursor: cursor, limit: limit, clock: clock, viewer: viewer)
    }

    /// `timeline.likes`: the live posts `user` liked that `viewer` may see, newest like first, and the cursor (a like
    /// id) for the next page, nil at the end.
    public static func likes(_ db: PostgresConnection, viewer: Int64, user: Int64, before: Int64?, limit: Int) throws
        -> (
            posts: [SocialPost], nextBefore: Int64?
        )
    {
        let rows = try idSeq(
            try db.execute(
                cached: """
                    SELECT p.id, l.id FROM likes l JOIN posts p ON p.id = l.post_id
                    WHERE l.user_id = $1 AND ($3::bigint IS NULL OR l.id < $3) AND p.deleted_at IS NULL
                      AND \(PostRepository.visible(viewer: "$2", author: "p.author_id"))
                    ORDER BY l.id DESC LIMIT $4
                    """, [.int(user), .int(viewer), before.map { .int($0) }, .int(Int64(limit + 1))]))
        let taken = Array(rows.prefix(limit))
        return (
            try PostRepository.ordered(db, ids: taken.map(\.id), viewer: viewer),
            rows.count > limit ? taken.last?.seq : nil
        )
    }

    /// `timeline.thread`'s parts for a post the caller found visible: its ancestors root first (at most `maxAncestors`;
    /// deleted or invisible ones as `gone`) and its direct replies oldest first after `after`, with the cursor of the
    /// next replies (nil at the end).
    public static func thread(
        _ db: PostgresConnection, viewer: Int64, postId: Int64, after: Int64?, limit: Int, maxAncestors: Int
    ) throws -> (ancestors: [ThreadAncestor], replies: [SocialPost], after: Int64?) {
        let ancestorIds: [Int64] = try db.execute(
            cached: """
                WITH RECURSIVE a(id, reply_to, depth) AS (
                  SELECT id, reply_to, 0 FROM posts WHERE id = $1
                  UNION ALL
                  SELECT p.id, p.reply_to, a.depth + 1 FROM posts p JOIN a ON p.id = a.reply_to WHERE a.depth < $2
                ) SELECT id FROM a WHERE depth > 0 ORDER BY depth DESC
                """, [.int(postId), .int(Int64(maxAncestors))]
        ).decode(column: 0)
        let found = try PostRepository.posts(db, ids: ancestorIds, viewer: viewer)
        var seeable: [Int64: Bool] = [:]
        var ancestors: [ThreadAncestor] = []
        for id in ancestorIds {
            guard let post = found[id] else {
                ancestors.append(.gone(postId: id))
                continue
            }
            let author = post.author.userId
            let ok = try seeable[author] ?? SocialGraphRepository.canSeePosts(db, viewer: viewer, author: author)
            seeable[author] = ok
            ancestors.append(ok ? .post(post) : .gone(postId: id))
        }
        let rows = try idSeq(
            try db.execute(
                cached: """
                    SELECT p.id, p.seq FROM posts p
                    WHERE p.reply_to = $1 AND p.deleted_at IS NULL AND p.seq > $2
                      AND \(PostRepository.visible(viewer: "$3", author: "p.author_id"))
                    ORDER BY p.seq LIMIT $4
                    """, [.int(postId), .int(after ?? 0), .int(viewer), .int(Int64(limit + 1))]))
        let taken = Array(rows.prefix(limit))
        return (
            ancestors, try PostRepository.ordered(db, ids: taken.map(\.id), viewer: viewer),
            rows.count > limit ? taken.last?.seq : nil
        )
    }
}
