//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of posts, replies, reposts and likes (issue 18; docs/protocol.md "Posts and timelines", docs/social.md
/// "Timelines: storage and ordering"). Every function takes the connection it runs on; none opens a transaction.
///
/// Ordering: a transaction that creates or deletes posts inserts them with a temporary negative `seq` (`-id`: unique
/// and never seen by a reader, who sees only commits) and, as its LAST statement, takes the next `seq`s from the one
/// `post_clock` row (`stampCreated`, `stampDeleted`). The row lock is held until the commit, so seq order is commit
/// order: a reader whose snapshot shows clock value C sees every post stamped up to C and none after.
///
/// Counts are exact: every count moves only by a row that was really inserted or deleted (`RETURNING`), in the
/// transaction that inserted or deleted it.
public enum PostRepository {
    /// A post's row.
    public struct Row: Sendable, Equatable {
        public var id: Int64
        public var seq: Int64
        public var authorId: Int64
        public var text: String
        public var createdAt: String
        public var replyTo: Int64?
        public var replyToUser: Int64?
        public var threadRoot: Int64?
        public var repostOf: Int64?
        public var voiceClipId: Int64?
        public var likeCount: Int64
        public var repostCount: Int64
        public var replyCount: Int64
        public var deleted: Bool
    }

    static let columns = """
        p.id, p.seq, p.author_id, p.text, \(WireTimestamp.sql("p.created_at")), p.reply_to, p.reply_to_user,
        p.thread_root, p.repost_of, p.voice_clip_id, p.like_count, p.repost_count, p.reply_count,
        p.deleted_at IS NOT NULL
        """

    static func row(_ r: PostgresRow) throws(PostgresDecodingError) -> Row {
        Row(
            id: try r.decode(column: 0), seq: try r.decode(column: 1), authorId: try r.decode(column: 2),
            text: try r.decode(column: 3),
            createdAt: try r.decode(column: 4), replyTo: try r.decode(column: 5), replyToUser: try r.decode(column: 6),
            threadRoot: try r.decode(column: 7), repostOf: try r.decode(column: 8),
            voiceClipId: try r.decode(column: 9),
            likeCount: try r.decode(column: 10), repostCount: try r.decode(column: 11),
            replyCount: try r.decode(column: 12),
            deleted: try r.decode(column: 13))
    }

    /// The rows of `ids` (deleted ones too), by id.
    public static func rows(_ db: PostgresConnection, ids: [Int64]) throws -> [Int64: Row] {
        guard !ids.isEmpty else { return [:] }
        var out: [Int64: Row] = [:]
        for r in try db.execute(
            cached: "SELECT \(columns) FROM posts p WHERE p.id = ANY($1::bigint[])",
            [.text(MessageStore.bigintArray(ids))])
        {
            let row = try row(r)
            out[row.id] = row
        }
        return out
    }

    /// One post's row (deleted too), or nil.
    public static func row(_ db: PostgresConnection, id: Int64) throws -> Row? { try rows(db, ids: [id])[id] }

    /// The SQL condition "`viewer` may see the posts of the user `author`" (`SocialGraphRepository.canSeePosts` in
    /// one expression, for pages): neither blocked the other, and the author is the viewer, not protected, or
    /// actively followed by the viewer. `viewer` and `author` are SQL expressions.
    public static func visible(viewer: String, author: String) -> String {
        """
        (\(author) = \(viewer) OR (NOT EXISTS (SELECT 1 FROM blocks b
                                               WHERE (b.blocker_id = \(viewer) AND b.blocked_id = \(author))
                                                  OR (b.blocker_id = \(author) AND b.blocked_id = \(viewer)))
          AND (NOT (SELECT vu.protected FROM users vu WHERE vu.id = \(author))
               OR EXISTS (SELECT 1 FROM follows vf
                          WHERE vf.follower_id = \(viewer) AND vf.followee_id = \(author) AND vf.state = 'active'))))
        """
    }

    /// The posts of `ids` as `viewer` sees them (live posts only; a repost carries its original, and is left out
    /// when the original is deleted), by id. Visibility is the caller's: pages select visible ids, single posts
    /// check with `SocialGraphRepository.canSeePosts`.
    public static func posts(_ db: PostgresConnection, ids: [Int64], viewer: Int64) throws -> [Int64: SocialPost] {
        guard !ids.isEmpty else { return [:] }
        var rows = try Self.rows(db, ids: ids).filter { !$0.value.deleted }
        let originalIds = Set(rows.values.compactMap(\.repostOf)).subtracting(rows.keys)
        for (id, row) in try self.rows(db, ids: Array(originalIds)) { rows[id] = row }
        let all = Array(rows.keys)
        var userIds = Set(rows.values.map(\.authorId))
        userIds.formUnion(rows.values.compactMap(\.replyToUser))
        let users = try SocialGraphRepository.socialUsers(db, ids: Array(userIds))
        var mentions: [Int64: [PostMention]] = [:]
        for r in try db.execute(
            cached: """
                SELECT m.post_id, m.user_id, u.handle FROM post_mentions m JOIN users u ON u.id = m.user_id
                WHERE m.post_id = ANY($1::bigint[]) AND u.handle IS NOT NULL ORDER BY m.post_id, m.user_id
                """, [.text(MessageStore.bigintArray(all))])
        {
            mentions[try r.decode(column: 0), default: []].append(
                PostMention(userId: try r.decode(column: 1), handle: try r.decode(column: 2)))
        }
        var hashtags: [Int64: [String]] = [:]
        for r in try db.execute(
            cached: "SELECT post_id, tag FROM post_hashtags WHERE post_id = ANY($1::bigint[]) ORDER BY post_id, tag",
            [.text(MessageStore.bigintArray(all))])
        {
            hashtags[try r.decode(column: 0), default: []].append(try r.decode(column: 1))
        }
        let liked = Set(
            try db.execute(
                cached: "SELECT post_id FROM likes WHERE user_id = $1 AND post_id = ANY($2::bigint[])",
                [.int(viewer), .text(MessageStore.bigintArray(all))]
            ).decode(Int64.self, column: 0))
        let reposted = Set(
            try db.execute(
                cached: """
                    SELECT repost_of FROM posts
                    WHERE author_id = $1 AND repost_of = ANY($2::bigint[]) AND deleted_at IS NULL
                    """,
                [.int(viewer), .text(MessageStore.bigintArray(all))]
            ).decode(Int64.self, column: 0))
        let photos = try MomentRepository.postPhotos(db, postIds: all)
        let unknown = SocialUser(userId: 0, displayName: "", handle: nil, protected: false)
        func make(_ row: Row) -> SocialPost {
            SocialPost(
                postId: row.id, seq: row.seq, author: users[row.authorId] ?? unknown, text: row.text,
                createdAt: row.createdAt, replyTo: row.replyTo,
                replyToUser: row.replyToUser.flatMap { users[$0] }, threadRoot: row.threadRoot,
                voiceClipId: row.voiceClipId,
                mentions: mentions[row.id] ?? [], hashtags: hashtags[row.id] ?? [], likeCount: row.likeCount,
                repostCount: row.repostCount,
                replyCount: row.replyCount, liked: liked.contains(row.id), reposted: reposted.contains(row.id),
                photos: photos[row.id] ?? [])
        }
        var out: [Int64: SocialPost] = [:]
        for id in ids {
            guard let row = rows[id], !row.deleted else { continue }
            var post = make(row)
            if let originalId = row.repostOf {
                guard let original = rows[originalId], !original.deleted else { continue }
                let o = make(original)
                post.repostOf = o
                post.likeCount = o.likeCount
                post.repostCount = o.repostCount
                post.replyCount = o.replyCount
                post.liked = o.liked
                post.reposted = o.reposted
            }
            out[id] = post
        }
        return out
    }

    /// `ids`' posts in the order of `ids` (the missing ones left out).
    public static func ordered(_ db: PostgresConnection, ids: [Int64], viewer: Int64) throws -> [SocialPost] {
        let posts = try posts(db, ids: ids, viewer: viewer)
        return ids.compactMap { posts[$0] }
    }

    /// A live post `viewer` may see (and, for a repost, its original too), or nil: the one answer for missing,
    /// deleted, blocked and protected (`not_found`).
    public static func visiblePost(_ db: PostgresConnection, id: Int64, viewer: Int64) throws -> SocialPost? {
        guard let post = try posts(db, ids: [id], viewer: viewer)[id] else { return nil }
        guard try SocialGraphRepository.canSeePosts(db, viewer: viewer, author: post.author.userId) else { return nil }
        if let original = post.repostOf,
            try !SocialGraphRepository.canSeePosts(db, viewer: viewer, author: original.author.userId)
        {
            return nil
        }
        return post
    }

    /// The live row `viewer` may act on: `id`'s, or for a repost its original's (`resolveRepost`); nil when missing,
    /// deleted or invisible.
    public static func target(_ db: PostgresConnection, id: Int64, viewer: Int64, resolveRepost: Bool = true) throws
        -> Row?
    {
        guard var row = try Self.row(db, id: id), !row.deleted else { return nil }
        if resolveRepost, let originalId = row.repostOf {
            guard try SocialGraphRepository.canSeePosts(db, viewer: viewer, author: row.authorId),
                let original = try self.row(db, id: originalId), !original.deleted
            else { return nil }
            row = original
        }
        guard try SocialGraphRepository.canSeePosts(db, viewer: viewer, author: row.authorId) else { return nil }
        return row
    }

    // MARK: Writing

    /// What a write did, for the events after its commit.
    public struct Effects: Sendable, Equatable {
        /// Posts created (stamped), in order.
        public var created: [Int64] = []
        /// Posts deleted: id, author, thread root and the deletion's seq.
        public var deleted: [Deleted] = []
        /// Posts whose counts changed.
        public var counts: [Int64] = []
        /// Notifications recorded: recipient and notification id.
        public var notified: [Notified] = []
        public init() {}

        public struct Deleted: Sendable, Equatable {
            public var postId: Int64
            public var authorId: Int64
            public var threadRoot: Int64?
            public var seq: Int64
        }
        public struct Notified: Sendable, Equatable {
            public var userId: Int64
            public var notificationId: Int64
        }

        mutating func record(
            _ db: PostgresConnection, userId: Int64, kind: SocialNotificationKind, actorId: Int64, postId: Int64?
        ) throws {
            if let id = try SocialNotifications.record(db, userId: userId, kind: kind, actorId: actorId, postId: postId)
            {
                notified.append(Notified(userId: userId, notificationId: id))
            }
        }
    }

    /// Inserts a row with a temporary seq (`-id`); `stampCreated` gives it its real one at the end of the transaction.
    static func insert(
        _ db: PostgresConnection, author: Int64, text: String, replyTo: Int64?, replyToUser: Int64?, threadRoot: Int64?,
        repostOf: Int64?,
        voiceClipId: Int64?
    ) throws -> Int64 {
        guard
            let id = try db.execute(
                cached: """
                    INSERT INTO posts
                      (id, seq, author_id, text, reply_to, reply_to_user, thread_root, repost_of, voice_clip_id)
                    SELECT n, -n, $1, $2, $3, $4, $5, $6, $7 FROM (SELECT nextval('posts_id_seq') AS n) s RETURNING id
                    """,
                [
                    .int(author), .text(text), replyTo.map { .int($0) }, replyToUser.map { .int($0) },
                    threadRoot.map { .int($0) }, repostOf.map { .int($0) },
                    voiceClipId.map { .int($0) },
                ]
            ).decodeFirst(Int64.self)
        else { throw PostError.invariant("the new post has no id") }
        try db.execute(cached: "UPDATE users SET post_count = post_count + 1 WHERE id = $1", [.int(author)])
        return id
    }

    /// The LAST statement of a transaction that created `postId`: the next seq from `post_clock`, written to the post
    /// and its mention and hashtag rows. Returns the seq.
    @discardableResult
    public static func stampCreated(_ db: PostgresConnection, postId: Int64) throws -> Int64 {
        guard
            let seq = try db.execute(
                cached: """
                    WITH c AS (UPDATE post_clock SET seq = seq + 1 RETURNING seq),
                    p AS (UPDATE posts SET seq = (SELECT seq FROM c) WHERE id = $1),
                    m AS (UPDATE post_mentions SET seq = (SELECT seq FROM c) WHERE post_id = $1),
                    h AS (UPDATE post_hashtags SET seq = (SELECT seq FROM c) WHERE post_id = $1)
                    SELECT seq FROM c
                    """, [.int(postId)]
            ).decodeFirst(Int64.self)
        else { throw PostError.invariant("post_clock is missing") }
        return seq
    }

    /// The LAST statement of a transaction that deleted `postIds` (in that order): one seq each from `post_clock`,
    /// written to `deleted_seq`. Returns the seqs by post id.
    public static func stampDeleted(_ db: PostgresConnection, postIds: [Int64]) throws -> [Int64: Int64] {
        guard !postIds.isEmpty else { return [:] }
        var out: [Int64: Int64] = [:]
        for r in try db.execute(
            cached: """
                WITH c AS (UPDATE post_clock SET seq = seq + cardinality($1::bigint[]) RETURNING seq),
                d AS (SELECT id, ord FROM unnest($1::bigint[]) WITH ORDINALITY AS t(id, ord))
                UPDATE posts p SET deleted_seq = c.seq - cardinality($1::bigint[]) + d.ord FROM c, d WHERE p.id = d.id
                RETURNING p.id, p.deleted_seq
                """, [.text(MessageStore.bigintArray(postIds))])
        {
            out[try r.decode(column: 0)] = try r.decode(column: 1)
        }
        return out
    }

    /// `post.create`: a post or a reply by `author` (who has a handle), with its mention and hashtag rows and its
    /// notifications (reply to the parent's author, mention to each mentioned user who may see it), stamped last.
    /// - Throws: `PostError.noSuchPost` for an invisible or deleted `replyTo`, `.noSuchVoiceClip` for a voice clip
    ///   that is not the author's, `.noSuchPhoto`/`.duplicatePhotos` for the photos.
    public static func create(
        _ db: PostgresConnection, author: Int64, text: PostText, replyTo: Int64?, voiceClipId: Int64?,
        clientId: String? = nil,
        photoIds: [Int64] = []
    ) throws -> (postId: Int64, effects: Effects) {
        var effects = Effects()
        if let clientId {
            // Two resends of one post wait for each other here; the second then finds the first's row (its own
            // statement snapshot, READ COMMITTED) and returns it with no effects: nothing counted or announced twice.
            try db.execute(
                cached: "SELECT pg_advisory_xact_lock(hashtextextended('post.client_id:' || $1::text || ':' || $2, 0))",
                [.int(author), .text(clientId)])
            if let existing = try db.execute(
                cached: "SELECT id FROM posts WHERE author_id = $1 AND client_id = $2", [.int(author), .text(clientId)]
            ).decodeFirst(Int64.self) {
                return (existing, effects)
            }
        }
        var parent: Row? = nil
        if let replyTo {
            guard let p = try Self.target(db, id: replyTo, viewer: author) else { throw PostError.noSuchPost }
            parent = p
        }
        if let voiceClipId,
            try db.execute(
                cached: "SELECT 1 FROM voice_clips WHERE id = $1 AND uploader_id = $2",
                [.int(voiceClipId), .int(author)]
            ).isEmpty
        {
            throw PostError.noSuchVoiceClip
        }
        if let parent {
            // The parent's row lock, and a deletion that committed meanwhile is seen here (not_found).
            guard
                try !db.execute(
                    cached: """
                        UPDATE posts SET reply_count = reply_count + 1 WHERE id = $1 AND deleted_at IS NULL RETURNING 1
                        """,
                    [.int(parent.id)]
                ).isEmpty
            else { throw PostError.noSuchPost }
            effects.counts.append(parent.id)
        }
        let id = try insert(
            db, author: author, text: text.text, replyTo: parent?.id, replyToUser: parent?.authorId,
            threadRoot: parent.map { $0.threadRoot ?? $0.id },
            repostOf: nil, voiceClipId: voiceClipId)
        if let clientId {
            try db.execute(cached: "UPDATE posts SET client_id = $2 WHERE id = $1", [.int(id), .text(clientId)])
        }
        if !photoIds.isEmpty {
            // The photo rules are the moments' (distinct, the author's own); their errors as the post's.
            do {
                try MomentRepository.attachToPost(db, postId: id, author: author, photoIds: photoIds)
            } catch MomentError.duplicatePhotos {
                throw PostError.duplicatePhotos
            } catch MomentError.noSuchPhoto {
                throw PostError.noSuchPhoto
            }
        }
        if !text.mentions.isEmpty {
            let found = try SocialGraphRepository.userIds(db, handles: text.mentions.map { $0.lowercased() })
            var seen: Set<Int64> = []
            for handle in text.mentions {
                guard let user = found[handle.lowercased()], seen.insert(user).inserted else { continue }
                // A blocked user (either way) gets no mention row and no notification; the text keeps the @handle.
                if user != author, try SocialGraphRepository.isBlockedEitherWay(db, user, author) { continue }
                try db.execute(
                    cached: """
                        INSERT INTO post_mentions (post_id, user_id, seq) VALUES ($1, $2, -($1::bigint))
                        ON CONFLICT DO NOTHING
                        """,
                    [.int(id), .int(user)])
                if user != author, try SocialGraphRepository.canSeePosts(db, viewer: user, author: author) {
                    try effects.record(db, userId: user, kind: .mention, actorId: author, postId: id)
                }
            }
        }
        for tag in text.hashtags {
            try db.execute(
                cached: """
                    INSERT INTO post_hashtags (post_id, tag, seq) VALUES ($1, $2, -($1::bigint))
                    ON CONFLICT DO NOTHING
                    """,
                [.int(id), .text(tag)])
        }
        if let parent { try effects.record(db, userId: parent.authorId, kind: .reply, actorId: author, postId: id) }
        try stampCreated(db, postId: id)
        effects.created.append(id)
        return (id, effects)
    }

    /// `post.repost`: `user`'s repost of `postId` (a repost's id means its original), or the existing one.
    /// - Throws: `PostError.noSuchPost` (missing, deleted, invisible), `.protectedRepost` (a protected author's post).
    public static func repost(_ db: PostgresConnection, user: Int64, postId: Int64) throws -> (
        repostId: Int64, effects: Effects
    ) {
        var effects = Effects()
        guard let original = try target(db, id: postId, viewer: user) else { throw PostError.noSuchPost }
        // The original's row lock first: two reposts by the same user (two devices) wait for each other here.
        guard
            let protected = try db.execute(
                cached: """
                    SELECT u.protected FROM posts p JOIN users u ON u.id = p.author_id
                    WHERE p.id = $1 AND p.deleted_at IS NULL FOR NO KEY UPDATE OF p
                    """, [.int(original.id)]
            ).decodeFirst(Bool.self)
        else { throw PostError.noSuchPost }
        if let existing = try db.execute(
            cached: "SELECT id FROM posts WHERE author_id = $1 AND repost_of = $2 AND deleted_at IS NULL",
            [.int(user), .int(original.id)]
        ).decodeFirst(Int64.self) {
            return (existing, effects)
        }
        if protected && original.authorId != user { throw PostError.protectedRepost }
        try db.execute(cached: "UPDATE posts SET repost_count = repost_count + 1 WHERE id = $1", [.int(original.id)])
        let id = try insert(
            db, author: user, text: "", replyTo: nil, replyToUser: nil, threadRoot: nil, repostOf: original.id,
            voiceClipId: nil)
        try effects.record(db, userId: original.authorId, kind: .repost, actorId: user, postId: original.id)
        try stampCreated(db, postId: id)
        effects.created.append(id)
        effects.counts.append(original.id)
        return (id, effects)
    }

    /// `post.unrepost`: deletes `user`'s repost of `postId` (the original, or a repost of it), if any.
    public static func unrepost(_ db: PostgresConnection, user: Int64, postId: Int64) throws -> Effects {
        var originalId = postId
        if let row = try Self.row(db, id: postId), let o = row.repostOf { originalId = o }
        guard
            let repost = try db.execute(
                cached:
                    "SELECT id FROM posts WHERE author_id = $1 AND repost_of = $2 AND deleted_at IS NULL FOR UPDATE",
                [.int(user), .int(originalId)]
            ).decodeFirst(Int64.self)
        else { return Effects() }
        return try delete(db, ids: [repost])
    }

    /// `post.delete`: `postId` (by its author, or any post by an administrator) with every repost of it.
    /// - Throws: `PostError.noSuchPost` (missing, deleted, invisible), `.notAuthor` (someone else's post).
    public static func delete(_ db: PostgresConnection, user: Int64, postId: Int64, administrator: Bool) throws
        -> Effects
    {
        guard let row = try Self.row(db, id: postId), !row.deleted,
            try administrator || SocialGraphRepository.canSeePosts(db, viewer: user, author: row.authorId)
        else { throw PostError.noSuchPost }
        guard row.authorId == user || administrator else { throw PostError.notAuthor }
        // The post's row lock before listing its reposts: a repost being made waits for it (or committed before it,
        // and is listed), so no live repost of a deleted post is left behind.
        guard
            try !db.execute(
                cached: "SELECT 1 FROM posts WHERE id = $1 AND deleted_at IS NULL FOR UPDATE", [.int(postId)]
            ).isEmpty
        else {
            throw PostError.noSuchPost
        }
        let reposts: [Int64] = try db.execute(
            cached: "SELECT id FROM posts WHERE repost_of = $1 AND deleted_at IS NULL ORDER BY id", [.int(postId)]
        ).decode(column: 0)
        return try delete(db, ids: [postId] + reposts)
    }

    /// Marks `ids` deleted (those still live), adjusts the counts (the authors' post counts, a reply's parent, a
    /// repost's original) and stamps the deletions last.
    static func delete(_ db: PostgresConnection, ids: [Int64]) throws -> Effects {
        var effects = Effects()
        var deleted: [Row] = []
        for r in try db.execute(
            cached: """
                UPDATE posts p SET deleted_at = now(), text = ''
                WHERE p.id = ANY($1::bigint[]) AND p.deleted_at IS NULL RETURNING \(columns)
                """, [.text(MessageStore.bigintArray(ids))])
        {
            deleted.append(try row(r))
        }
        guard !deleted.isEmpty else { return effects }
        let byAuthor = Dictionary(grouping: deleted, by: \.authorId).mapValues(\.count)
        for author in byAuthor.keys.sorted() {
            try db.execute(
                cached: "UPDATE users SET post_count = greatest(0, post_count - $2) WHERE id = $1",
                [.int(author), .int(Int64(byAuthor[author] ?? 0))])
        }
        let goneIds = Set(deleted.map(\.id))
        for parent in Set(deleted.compactMap(\.replyTo)).sorted() {
            let n = deleted.filter { $0.replyTo == parent }.count
            try db.execute(
                cached: "UPDATE posts SET reply_count = greatest(0, reply_count - $2) WHERE id = $1",
                [.int(parent), .int(Int64(n))])
            if !goneIds.contains(parent) { effects.counts.append(parent) }
        }
        for original in Set(deleted.compactMap(\.repostOf)).sorted() {
            let n = deleted.filter { $0.repostOf == original }.count
            try db.execute(
                cached: "UPDATE posts SET repost_count = greatest(0, repost_count - $2) WHERE id = $1",
                [.int(original), .int(Int64(n))])
            if !goneIds.contains(original) { effects.counts.append(original) }
        }
        let order = ids.filter { goneIds.contains($0) }
        let seqs = try stampDeleted(db, postIds: order)
        for id in order {
            guard let row = deleted.first(where: { $0.id == id }), let seq = seqs[id] else { continue }
            effects.deleted.append(.init(postId: id, authorId: row.authorId, threadRoot: row.threadRoot, seq: seq))
        }
        return effects
    }

    /// `post.like`/`post.unlike` by `user` of `postId` (a repost's id means its original): the original's id, its
    /// like count after the change and whether `user` likes it.
    /// - Throws: `PostError.noSuchPost` (missing, deleted, invisible).
    public static func setLike(_ db: PostgresConnection, user: Int64, postId: Int64, liked: Bool) throws -> (
        result: PostLikeResult, effects: Effects
    ) {
        var effects = Effects()
        guard let post = try target(db, id: postId, viewer: user) else { throw PostError.noSuchPost }
        var count: Int64? = nil
        if liked {
            if try !db.execute(
                cached: "INSERT INTO likes (post_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING id",
                [.int(post.id), .int(user)]
            ).isEmpty {
                guard
                    let c = try db.execute(
                        cached: """
                            UPDATE posts SET like_count = like_count + 1 WHERE id = $1 AND deleted_at IS NULL
                            RETURNING like_count
                            """,
                        [.int(post.id)]
                    ).decodeFirst(Int64.self)
                else { throw PostError.noSuchPost }
                count = c
                effects.counts.append(post.id)
                try effects.record(db, userId: post.authorId, kind: .like, actorId: user, postId: post.id)
            }
        } else if try !db.execute(
            cached: "DELETE FROM likes WHERE post_id = $1 AND user_id = $2 RETURNING id", [.int(post.id), .int(user)]
        ).isEmpty {
            count = try db.execute(
                cached: "UPDATE posts SET like_count = greatest(0, like_count - 1) WHERE id = $1 RETURNING like_count",
                [.int(post.id)]
            ).decodeFirst(Int64.self)
            effects.counts.append(post.id)
        }
        let current =
            try count
            ?? (db.execute(cached: "SELECT like_count FROM posts WHERE id = $1", [.int(post.id)]).decodeFirst(
                Int64.self) ?? 0)
        return (PostLikeResult(postId: post.id, likeCount: current, liked: liked), effects)
    }

    /// `post.likers`: who liked `postId` (resolved to its original), newest like first, without users blocked either
    /// way by `viewer`; the like ids for the cursor.
    public static func likers(_ db: PostgresConnection, postId: Int64, viewer: Int64, before: Int64?, limit: Int) throws
        -> [(likeId: Int64, user: SocialUser)]
    {
        try db.execute(
            cached: """
                SELECT l.id, u.id, u.display_name, u.handle, u.protected, u.avatar_photo_id
                FROM likes l JOIN users u ON u.id = l.user_id
                WHERE l.post_id = $1 AND ($2::bigint IS NULL OR l.id < $2) AND u.deleted_at IS NULL
                  AND NOT EXISTS (SELECT 1 FROM blocks b WHERE (b.blocker_id = $3 AND b.blocked_id = u.id)
                                                          OR (b.blocker_id = u.id AND b.blocked_id = $3))
                ORDER BY l.id DESC LIMIT $4
                """, [.int(postId), before.map { .int($0) }, .int(viewer), .int(Int64(limit))]
        ).map { r throws(PostgresDecodingError) in
            (
                try r.decode(column: 0),
                SocialUser(
                    userId: try r.decode(column: 1), displayName: try r.decode(column: 2),
                    handle: try r.decode(column: 3), protected: try r.decode(column: 4),
                    avatarPhotoId: try r.decode(column: 5))
            )
        }
    }
}
