//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardStore

/// The social layer's part of account deletion (follows, blocks and mutes, likes, notifications; the posts step,
/// which tells live pages, is registered by the server's posts feature around `SocialGraphRepository.deletePosts`)
/// and of the data export (`social.json`).
public enum SocialAccountData {
    /// Follows both ways, pending too (the other users' counts decremented).
    public static let follows = AccountDeletionStep.rows("follows", order: 140) { db, userId, limit in
        try SocialGraphRepository.deleteFollows(db, userId: userId, limit: limit)
    }

    /// Blocks and mutes both ways.
    public static let blocks = AccountDeletionStep.rows("blocks", order: 150) { db, userId, limit in
        let blocks = try db.execute(
            cached: """
                DELETE FROM blocks WHERE (blocker_id, blocked_id) IN (
                    SELECT blocker_id, blocked_id FROM blocks WHERE blocker_id = $1 OR blocked_id = $1 LIMIT $2)
                """, [.int(userId), .int(limit)]
        ).affectedRows
        let mutes = try db.execute(
            cached: """
                DELETE FROM mutes WHERE (muter_id, muted_id) IN (
                    SELECT muter_id, muted_id FROM mutes WHERE muter_id = $1 OR muted_id = $1 LIMIT $2)
                """, [.int(userId), .int(limit)]
        ).affectedRows
        return blocks + mutes
    }

    /// Likes the user gave (the posts' like counts decremented).
    public static let likes = AccountDeletionStep.rows("likes", order: 160) { db, userId, limit in
        try db.execute(
            cached: """
                WITH d AS (DELETE FROM likes WHERE (post_id, user_id) IN (
                        SELECT post_id, user_id FROM likes WHERE user_id = $1 ORDER BY post_id LIMIT $2)
                        RETURNING post_id),
                c AS (UPDATE posts p SET like_count = greatest(0, p.like_count - 1) FROM d WHERE p.id = d.post_id
                      RETURNING 1)
                SELECT count(*) FROM d
                """, [.int(userId), .int(limit)]
        ).decodeFirst(Int.self) ?? 0
    }

    /// The order of the posts step (the user's posts and others' reposts of them, marked deleted like
    /// `post.delete`), which the posts feature registers.
    public static let postsOrder = 170

    /// Social notifications to or from the user.
    public static let notifications = AccountDeletionStep.rows("social_notifications", order: 180) {
        db, userId, limit in
        try db.execute(
            cached: """
                DELETE FROM social_notifications WHERE id IN (
                    (SELECT id FROM social_notifications WHERE user_id = $1 LIMIT $2)
                    UNION ALL (SELECT id FROM social_notifications WHERE actor_id = $1 LIMIT $2))
                """, [.int(userId), .int(limit)]
        ).affectedRows
    }

    /// `social.json`: handle, follows, blocks, mutes, posts, likes and reposts.
    public static let exportSection = AccountExportSection(files: "social.json", order: 90) { c in
        let userId = c.userId
        try c.add(
            "social.json",
            json: try await c.pool.withConnection { db in
                try SocialGraphRepository.export(db, userId: userId)
            })
    }
}
