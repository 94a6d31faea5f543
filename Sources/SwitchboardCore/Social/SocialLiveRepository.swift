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

/// The SQL of live pages and social notifications' posts (`docs/social.md`, "Live pages"): posts loaded as the
/// wire's `post` (viewer fields false, `PostRepository.posts` with viewer 0), a user's follow/mute/block sets,
/// profile counts, the authorization of a stream and the replay of a resume. Every function takes the connection it
/// runs on.
public enum SocialLiveRepository {
    /// A user's relations, as live routing needs them.
    public struct Relations: Sendable, Equatable {
        /// Users it actively follows.
        public var followees: Set<Int64>
        /// Users it mutes.
        public var muted: Set<Int64>
        /// Users it blocks or is blocked by.
        public var blocked: Set<Int64>
        public init(followees: Set<Int64> = [], muted: Set<Int64> = [], blocked: Set<Int64> = []) {
            self.followees = followees
            self.muted = muted
            self.blocked = blocked
        }
    }

    /// `user`'s active followees, mutes and blocks either way (GRAPH's three index scans).
    public static func relations(_ db: PostgresConnection, of user: Int64) throws -> Relations {
        Relations(
            followees: Set(try SocialGraphRepository.activeFolloweeIds(db, of: user)),
            muted: try SocialGraphRepository.mutedIds(db, of: user),
            blocked: try SocialGraphRepository.blockedEitherWayIds(db, of: user))
    }

    /// The post clock (the newest committed post seq).
    public static func clock(_ db: PostgresConnection) throws -> Int64 {
        try db.execute(cached: "SELECT seq FROM post_clock", []).decodeFirst(Int64.self) ?? 0
    }

    /// Whether `viewer` may see `author`'s posts: not blocked either way, and the author not protected, or the
    /// viewer is the author or an active follower. Nil when there is no such user.
    public static func postsVisibility(_ db: PostgresConnection, viewer: Int64, author: Int64) throws -> Visibility {
        guard
            let row = try db.execute(
                cached: """
                    SELECT u.protected, u.handle IS NOT NULL,
                           EXISTS (SELECT 1 FROM blocks
                                   WHERE (blocker_id = $1 AND blocked_id = $2)
                                      OR (blocker_id = $2 AND blocked_id = $1)),
                           EXISTS (SELECT 1 FROM follows
                                   WHERE follower_id = $1 AND followee_id = $2 AND state = 'active')
                    FROM users u WHERE u.id = $2
                    """, [.int(viewer), .int(author)]
            ).first
        else { return .notFound }
        let protected: Bool = try row.decode(column: 0)
        let hasHandle: Bool = try row.decode(column: 1)
        let blocked: Bool = try row.decode(column: 2)
        let following: Bool = try row.decode(column: 3)
        if viewer == author { return .visible }
        if blocked || !hasHandle { return .notFound }
        if protected && !following { return .protected }
        return .visible
    }

    /// The answer of `postsVisibility`.
    public enum Visibility: Sendable, Equatable {
        case visible
        /// No such user, blocked either way, or not a social profile.
        case notFound
        /// A protected account the viewer does not follow.
        case protected
    }

    /// A post's place: its author and thread root (its own id for a root), nil when it does not exist or is deleted.
    public static func threadOf(_ db: PostgresConnection, postId: Int64) throws -> (
        author: Int64, root: Int64, rootAuthor: Int64
    )? {
        guard
            let row = try db.execute(
                cached: """
                    SELECT p.author_id, coalesce(p.thread_root, p.id), coalesce(r.author_id, p.author_id)
                    FROM posts p LEFT JOIN posts r ON r.id = p.thread_root
                    WHERE p.id = $1 AND p.deleted_at IS NULL AND p.repost_of IS NULL
                    """, [.int(postId)]
            ).first
        else { return nil }
        return (try row.decode(column: 0), try row.decode(column: 1), try row.decode(column: 2))
    }

    /// A post's routing facts and counts (for `post.counts`); nil when gone.
    public struct PostFacts: Sendable, Equatable {
        public var postId: Int64
        public var authorId: Int64
        public var authorProtected: Bool
        public var threadRoot: Int64?
        public var likeCount: Int64
        public var repostCount: Int64
        public var replyCount: Int64
    }

    public static func facts(_ db: PostgresConnection, postId: Int64) throws -> PostFacts? {
        guard
            let row = try db.execute(
                cached: """
                    SELECT p.id, p.author_id, u.protected, p.thread_root, p.like_count, p.repost_count, p.reply_count
                    FROM posts p JOIN users u ON u.id = p.author_id WHERE p.id = $1 AND p.deleted_at IS NULL
                    """, [.int(postId)]
            ).first
        else { return nil }
        return PostFacts(
            postId: try row.decode(column: 0), authorId: try row.decode(column: 1),
            authorProtected: try row.decode(column: 2),
            threadRoot: try row.decode(column: 3), likeCount: try row.decode(column: 4),
            repostCount: try row.decode(column: 5), replyCount: try row.decode(column: 6))
    }

    /// The authors of `postId`'s newest live reposts, at most `limit` (none when 0), newest first.
    public static func reposters(_ db: PostgresConnection, of postId: Int64, limit: Int) throws -> [Int64] {
        guard limit > 0 else { return [] }
        return try db.execute(
            cached: """
                SELECT author_id FROM posts WHERE repost_of = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT $2
                """, [.int(postId), .int(Int64(limit))]
        ).decode(Int64.self, column: 0)
    }

    /// `users`' profile counts.
    public static func profileCounts(_ db: PostgresConnection, users: [Int64]) throws -> [LiveEvents.ProfileCounts] {
        guard !users.isEmpty else { return [] }
        return try db.execute(
            cached: """
                SELECT id, post_count, following_count, follower_count FROM users
                WHERE id = ANY($1::bigint[]) ORDER BY id
                """,
            [.text(MessageStore.bigintArray(users))]
        ).map { row in
            LiveEvents.ProfileCounts(
                userId: try row.decode(column: 0), posts: try row.decode(column: 1),
                following: try row.decode(column: 2), followers: try row.decode(column: 3))
        }
    }

    /// Makes the transaction one snapshot (its first statement).
    public static func beginSnapshot(_ db: PostgresConnection) throws {
        try db.execute(cached: "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", [])
    }

    /// What a resume reads: the clock, the posts (ids, seq order) and deletions after `since` on the streams.
    public struct Replay: Sendable {
        public var clock: Int64
        public var postIds: [Int64]
        public var deleted: [LiveDeletedPost]
        /// More than `limit` were found.
        public var overflow: Bool
    }

    /// The posts and deletions with a seq in (`since`, clock] of the streams: home (`homeAuthors`, the viewer's
    /// followees and itself minus muted, with the home rule for replies), authors' pages, threads by root.
    /// Call inside a REPEATABLE READ transaction (`beginSnapshot` first), so the clock and the rows are one snapshot.
    public static func replay(
        _ db: PostgresConnection, viewer: Int64, since: Int64, homeAuthors: [Int64], authors: [Int64], roots: [Int64],
        limit: Int
    ) throws -> Replay {
        let clock = try clock(db)
        guard since < clock else { return Replay(clock: clock, postIds: [], deleted: [], overflow: false) }
        let params: [PostgresData?] = [
            .int(since), .int(clock), .text(MessageStore.bigintArray(homeAuthors)),
            .text(MessageStore.bigintArray(authors)),
            .text(MessageStore.bigintArray(roots)), .int(viewer), .int(Int64(limit) + 1),
        ]
        let ids = try db.execute(
            cached: """
                SELECT p.id FROM posts p
                WHERE p.seq > $1 AND p.seq <= $2 AND p.deleted_at IS NULL AND (
                    (p.author_id = ANY($3::bigint[])
                     AND (p.reply_to_user IS NULL OR p.author_id = $6 OR p.reply_to_user = $6
                          OR p.reply_to_user = ANY($3::bigint[])))
                    OR p.author_id = ANY($4::bigint[])
                    OR p.thread_root = ANY($5::bigint[]))
                ORDER BY p.seq LIMIT $7
                """, params
        ).decode(Int64.self, column: 0)
        let deleted = try db.execute(
            cached: """
                SELECT p.id, p.deleted_seq FROM posts p
                WHERE p.deleted_seq > $1 AND p.deleted_seq <= $2 AND (
                    p.author_id = ANY($3::bigint[]) OR p.author_id = ANY($4::bigint[])
                    OR p.thread_root = ANY($5::bigint[]))
                ORDER BY p.deleted_seq LIMIT $6
                """, Array(params[0..<5]) + [params[6]]
        ).map { LiveDeletedPost(postId: try $0.decode(column: 0), seq: try $0.decode(column: 1)) }
        let overflow = ids.count + deleted.count > limit
        return Replay(clock: clock, postIds: overflow ? [] : ids, deleted: overflow ? [] : deleted, overflow: overflow)
    }
}
