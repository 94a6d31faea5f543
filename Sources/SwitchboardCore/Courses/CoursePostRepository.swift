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

/// The SQL of a community's announcements and course lessons (`community_posts`) and each member's progress
/// (`lesson_progress`). Every function takes the connection it runs on; none opens a transaction of its own.
///
/// A live lesson's `position` is unique in its community (a partial unique index, which PostgreSQL checks row by row
/// and cannot defer): inserting at a position moves the later lessons down in two steps (negated, then put back one
/// further), inside the transaction that holds the community's row lock. A deleted lesson keeps its row (and its
/// place leaves a gap); counts of completed lessons count live lessons only.
public enum CoursePostRepository {
    /// The selected columns of a post as seen by `$1` (whether that user completed it).
    static let columns = """
        p.id, p.community_id, p.kind, p.position, p.title, p.body,
        CASE WHEN u.deleted_at IS NULL THEN u.id END, u.display_name, p.voice_clip_id, p.video_url,
        p.kind = 'lesson' AND EXISTS (SELECT 1 FROM lesson_progress lp WHERE lp.post_id = p.id AND lp.user_id = $1),
        \(WireTimestamp.sql("p.created_at")), \(WireTimestamp.sql("p.updated_at"))
        """
    static let from = "community_posts p LEFT JOIN users u ON u.id = p.author_id"

    static func post(_ r: PostgresRow) throws(PostgresDecodingError) -> CommunityPost {
        let authorId: Int64? = try r.decode(column: 6)
        let position: Int? = try r.decode(column: 3)
        return CommunityPost(
            postId: try r.decode(column: 0), communityId: try r.decode(column: 1), kind: try r.decode(column: 2),
            position: position,
            title: try r.decode(column: 4), body: try r.decode(column: 5),
            author: try authorId.map { id throws(PostgresDecodingError) in
                UserSummary(userId: id, displayName: try r.decode(column: 7))
            },
            voiceClipId: try r.decode(column: 8), videoUrl: try r.decode(column: 9),
            completed: try r.decode(column: 10),
            createdAt: try r.decode(column: 11), updatedAt: try r.decode(column: 12))
    }

    /// Takes the community's row lock (the first statement of a new post's transaction, so that two lessons inserted
    /// at once cannot compute the same place); whether the community exists. The membership is
    /// `CommunityRepository.membership`'s.
    public static func lockCommunity(_ db: PostgresConnection, communityId: Int64) throws -> Bool {
        try !db.execute(cached: "SELECT 1 FROM communities WHERE id = $1 FOR UPDATE", [.int(communityId)]).isEmpty
    }

    /// What a post's row says for authorization.
    public struct PostInfo: Sendable, Equatable {
        public var communityId: Int64
        public var kind: String
        public var authorId: Int64?
    }

    /// A live post's community, kind and author (nil: no such post, or deleted). `lock` takes its row lock.
    public static func info(_ db: PostgresConnection, postId: Int64, lock: Bool = false) throws -> PostInfo? {
        let sql =
            "SELECT community_id, kind, author_id FROM community_posts WHERE id = $1 AND deleted_at IS NULL"
            + (lock ? " FOR UPDATE" : "")
        guard let r = try db.execute(cached: sql, [.int(postId)]).first else { return nil }
        return PostInfo(
            communityId: try r.decode(column: 0), kind: try r.decode(column: 1), authorId: try r.decode(column: 2))
    }

    /// A live post as `viewer` sees it.
    public static func post(_ db: PostgresConnection, postId: Int64, viewer: Int64) throws -> CommunityPost? {
        try db.execute(
            cached: "SELECT \(columns) FROM \(from) WHERE p.id = $2 AND p.deleted_at IS NULL",
            [.int(viewer), .int(postId)]
        )
        .first.map { try post($0) }
    }

    /// Inserts a post; a lesson goes at `position` (nil or past the last lesson: after the last one), the lessons at
    /// and after it moving one place down. The caller holds the community's row lock (so that two insertions cannot
    /// interleave) and has checked the author's role and the clip's owner.
    public static func create(
        _ db: PostgresConnection, communityId: Int64, authorId: Int64, kind: String, title: String, body: String,
        voiceClipId: Int64?,
        videoUrl: String?, position: Int?
    ) throws -> CommunityPost {
        var place: Int? = nil
        if kind == "lesson" {
            let last =
                try db.execute(
                    cached: """
                        SELECT max(position) FROM community_posts
                        WHERE community_id = $1 AND kind = 'lesson' AND deleted_at IS NULL
                        """,
                    [.int(communityId)]
                ).decodeFirst(Int?.self) ?? nil
            let end = (last ?? 0) + 1
            let wanted = min(position ?? end, end)
            if wanted < end {
                // Two steps: a single `position + 1` would collide with the next lesson in the unique index midway.
                try db.execute(
                    cached: """
                        UPDATE community_posts SET position = -position
                        WHERE community_id = $1 AND kind = 'lesson' AND deleted_at IS NULL AND position >= $2
                        """, [.int(communityId), .int(Int64(wanted))])
                try db.execute(
                    cached: """
                        UPDATE community_posts SET position = 1 - position
                        WHERE community_id = $1 AND kind = 'lesson' AND deleted_at IS NULL AND position < 0
                        """, [.int(communityId)])
            }
            place = wanted
        }
        let id =
            try db.execute(
                cached: """
                    INSERT INTO community_posts
                        (community_id, author_id, kind, position, title, body, voice_clip_id, video_url)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id
                    """,
                [
                    .int(communityId), .int(authorId), .text(kind), place.map { .int(Int64($0)) }, .text(title),
                    .text(body),
                    voiceClipId.map { .int($0) }, videoUrl.map { .text($0) },
                ]
            ).decodeFirst(Int64.self) ?? 0
        guard let post = try post(db, postId: id, viewer: authorId) else { throw CommunityError.postNotStored }
        return post
    }

    /// Changes the given fields of a live post (`voiceClipId`/`videoUrl`: nil unchanged, `.some(nil)` removed).
    public static func update(
        _ db: PostgresConnection, postId: Int64, title: String?, body: String?, voiceClipId: Int64??, videoUrl: String??
    ) throws {
        try db.execute(
            cached: """
                UPDATE community_posts SET
                  title = COALESCE($2, title), body = COALESCE($3, body),
                  voice_clip_id = CASE WHEN $4 THEN $5::bigint ELSE voice_clip_id END,
                  video_url = CASE WHEN $6 THEN $7::text ELSE video_url END,
                  updated_at = now()
                WHERE id = $1 AND deleted_at IS NULL
                """,
            [
                .int(postId), title.map { .text($0) }, body.map { .text($0) }, .bool(voiceClipId != nil),
                (voiceClipId ?? nil).map { .int($0) },
                .bool(videoUrl != nil), (videoUrl ?? nil).map { .text($0) },
            ])
    }

    /// Marks a live post deleted (the other lessons keep their positions); whether it was live.
    public static func delete(_ db: PostgresConnection, postId: Int64) throws -> Bool {
        try !db.execute(
            cached: """
                UPDATE community_posts SET deleted_at = now(), updated_at = now()
                WHERE id = $1 AND deleted_at IS NULL RETURNING 1
                """,
            [.int(postId)]
        ).isEmpty
    }

    /// A page of a community's live posts of `kind`, newest first, below the post id `before`.
    public static func list(
        _ db: PostgresConnection, communityId: Int64, kind: String, before: Int64?, limit: Int, viewer: Int64
    ) throws -> [CommunityPost] {
        try db.execute(
            cached: """
                SELECT \(columns) FROM \(from)
                WHERE p.community_id = $2 AND p.kind = $3 AND p.deleted_at IS NULL AND p.id < $4
                ORDER BY p.id DESC LIMIT $5
                """, [.int(viewer), .int(communityId), .text(kind), .int(before ?? Int64.max), .int(Int64(limit))]
        ).map { try post($0) }
    }

    /// The course: the community's live lessons by position, each with whether `viewer` completed it.
    public static func lessons(_ db: PostgresConnection, communityId: Int64, viewer: Int64) throws -> [CommunityPost] {
        try db.execute(
            cached: """
                SELECT \(columns) FROM \(from)
                WHERE p.community_id = $2 AND p.kind = 'lesson' AND p.deleted_at IS NULL ORDER BY p.position
                """, [.int(viewer), .int(communityId)]
        ).map { try post($0) }
    }

    /// Marks a lesson completed (or not) for `userId`; whether that changed anything.
    public static func setCompleted(_ db: PostgresConnection, postId: Int64, userId: Int64, completed: Bool) throws
        -> Bool
    {
        let sql =
            completed
            ? "INSERT INTO lesson_progress (post_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1"
            : "DELETE FROM lesson_progress WHERE post_id = $1 AND user_id = $2 RETURNING 1"
        return try !db.execute(cached: sql, [.int(postId), .int(userId)]).isEmpty
    }

    /// How many of the community's live lessons `userId` completed, and how many there are.
    public static func progress(_ db: PostgresConnection, communityId: Int64, userId: Int64) throws -> (
        completed: Int, total: Int
    ) {
        guard
            let r = try db.execute(
                cached: """
                    SELECT count(lp.post_id), count(*) FROM community_posts p
                    LEFT JOIN lesson_progress lp ON lp.post_id = p.id AND lp.user_id = $2
                    WHERE p.community_id = $1 AND p.kind = 'lesson' AND p.deleted_at IS NULL
                    """, [.int(communityId), .int(userId)]
            ).first
        else { return (0, 0) }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// A page of the community's members with their counts of completed live lessons, by display name then id, after
    /// the member `after` (a user id: the previous page's last).
    public static func memberProgress(_ db: PostgresConnection, communityId: Int64, after: Int64?, limit: Int) throws
        -> [MemberProgress]
    {
        try db.execute(
            cached: """
                SELECT u.id, u.display_name, (
                  SELECT count(*) FROM lesson_progress lp JOIN community_posts p ON p.id = lp.post_id
                  WHERE lp.user_id = u.id AND p.community_id = $1 AND p.kind = 'lesson' AND p.deleted_at IS NULL)
                FROM community_members m JOIN users u ON u.id = m.user_id
                WHERE m.community_id = $1 AND ($2::bigint IS NULL
                  OR (u.display_name, u.id) > ((SELECT display_name FROM users WHERE id = $2::bigint), $2::bigint))
                ORDER BY u.display_name, u.id LIMIT $3
                """, [.int(communityId), after.map { .int($0) }, .int(Int64(limit))]
        ).map { r in
            MemberProgress(
                user: UserSummary(userId: try r.decode(column: 0), displayName: try r.decode(column: 1)),
                completed: try r.decode(column: 2))
        }
    }

    /// Removes up to `limit` of the user's lesson progress rows (account deletion); how many.
    public static func removeProgress(_ db: PostgresConnection, userId: Int64, limit: Int) throws -> Int {
        try db.execute(
            cached: """
                DELETE FROM lesson_progress WHERE (user_id, post_id) IN (
                    SELECT user_id, post_id FROM lesson_progress WHERE user_id = $1 LIMIT $2)
                """, [.int(userId), .int(Int64(limit))]
        ).affectedRows
    }

    // MARK: account export

    /// A post as the account export lists it (the author's own posts, deleted ones too).
    public struct ExportedPost: Encodable, Sendable {
        public var postId: Int64
        public var communityId: Int64
        public var kind: String
        public var position: Int?
        public var title: String
        public var body: String
        public var voiceClipId: Int64?
        public var videoUrl: String?
        public var createdAt: String
        public var updatedAt: String
        public var deletedAt: String?
    }

    /// A lesson the user completed.
    public struct ExportedProgress: Encodable, Sendable {
        public var postId: Int64
        public var communityId: Int64
        public var title: String
        public var completedAt: String
    }

    /// The posts `userId` wrote, oldest first.
    public static func exportedPosts(_ db: PostgresConnection, userId: Int64) throws -> [ExportedPost] {
        try db.execute(
            cached: """
                SELECT id, community_id, kind, position, title, body, voice_clip_id, video_url,
                  \(WireTimestamp.sql("created_at")), \(WireTimestamp.sql("updated_at")),
                  CASE WHEN deleted_at IS NOT NULL THEN \(WireTimestamp.sql("deleted_at")) END
                FROM community_posts WHERE author_id = $1 ORDER BY id
                """, [.int(userId)]
        ).map { r in
            ExportedPost(
                postId: try r.decode(column: 0), communityId: try r.decode(column: 1), kind: try r.decode(column: 2),
                position: try r.decode(column: 3), title: try r.decode(column: 4), body: try r.decode(column: 5),
                voiceClipId: try r.decode(column: 6), videoUrl: try r.decode(column: 7),
                createdAt: try r.decode(column: 8),
                updatedAt: try r.decode(column: 9), deletedAt: try r.decode(column: 10))
        }
    }

    /// The lessons `userId` completed, in the order they were completed.
    public static func exportedProgress(_ db: PostgresConnection, userId: Int64) throws -> [ExportedProgress] {
        try db.execute(
            cached: """
                SELECT p.id, p.community_id, p.title, \(WireTimestamp.sql("lp.completed_at")) FROM lesson_progress lp
                JOIN community_posts p ON p.id = lp.post_id WHERE lp.user_id = $1 ORDER BY lp.completed_at, p.id
                """, [.int(userId)]
        ).map { r in
            ExportedProgress(
                postId: try r.decode(column: 0), communityId: try r.decode(column: 1), title: try r.decode(column: 2),
                completedAt: try r.decode(column: 3))
        }
    }
}
