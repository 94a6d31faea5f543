//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardDomain
public import SwitchboardStore

/// What `account.delete` committed: the sessions it revoked and who should hear of it.
public struct DeletionRequest: Sendable, Equatable {
    /// Sessions revoked by the request (their connections are closed with 4005).
    public var sessionIds: [Int64]
    /// Friends at the time of the request (presence forgets them).
    public var friendIds: [Int64]
    /// Friends and other members of the user's conversations (told with `user.deleted`).
    public var contactIds: [Int64]
}

/// One step of an account deletion job: run in bounded batches, each its own transaction, until a batch changes
/// nothing. Every step is idempotent (a batch repeated after a crash finds nothing left to do), so a job resumes at
/// any step. Later kinds of data (posts, follows, moments, push registrations) join this list when they land.
public enum DeletionStep: String, Sendable, CaseIterable {
    /// Active memberships of groups end (the conversation's version is bumped so cached writers reload).
    case memberships
    /// The user's messages become tombstones: text, voice and reactions' target content gone, seq kept.
    case messages
    /// Reactions the user gave.
    case reactions
    /// The user's voice clips (any message still referring to one loses the reference first).
    case voiceClips = "voice_clips"
    /// Messages the user hid for themself.
    case hiddenMessages = "hidden_messages"
    /// Friend requests sent or received.
    case friendRequests = "friend_requests"
    /// Friendships.
    case friendships
    /// Call records where the user was caller or callee.
    case calls
    /// Data exports (rows; their files are removed by the caller).
    case exports
    /// Participations in community events (the events' counts decremented).
    case eventParticipations = "event_participations"
    /// Community memberships (the communities' member counts decremented).
    case communities
    /// Lessons the user marked completed (course progress).
    case lessonProgress = "lesson_progress"
    /// Sessions (already revoked by the request).
    case sessions
    /// Active-hours statistics (`active_hours`).
    case activeHours = "active_hours"
    /// Follows both ways, pending too (the other users' follower and following counts decremented).
    case follows
    /// Blocks and mutes both ways.
    case blocks
    /// Likes the user gave (the posts' like counts decremented).
    case likes
    /// The user's posts and others' reposts of them, marked deleted like `post.delete` (counts adjusted, each
    /// stamped from `post_clock`).
    case posts
    /// Social notifications to or from the user.
    case socialNotifications = "social_notifications"
    /// Likes the user gave to moments (the moments' like counts decremented).
    case momentLikes = "moment_likes"
    /// The user's moments, deleted for real (their photo links and likes cascade).
    case moments
    /// The user's photos and their renditions, deleted for real (post and moment links cascade, the avatar clears).
    case photos
    /// The user's resumable uploads in progress and their chunks.
    case uploads
}

/// The SQL of account deletion (`account_deletions`, the steps) and of the stub left behind.
public enum AccountDeletionRepository {
    /// Starts a deletion in one transaction: locks the user's row, inserts the job row, replaces the phone number
    /// (so it can register again at once), blanks the profile, marks the stub deleted and revokes every session.
    /// Idempotent: nil when the user is already deleted or does not exist.
    public static func request(_ db: PostgresConnection, userId: Int64) throws -> DeletionRequest? {
        guard
            try db.execute(cached: "SELECT id FROM users WHERE id = $1 AND deleted_at IS NULL FOR UPDATE", [.int(userId)]).first != nil
        else { return nil }
        let friends = try FriendRepository.friends(db, of: userId).map(\.userId)
        let members = try db.execute(
            cached: """
                SELECT DISTINCT o.user_id FROM members me JOIN members o ON o.conversation_id = me.conversation_id
                WHERE me.user_id = $1 AND o.user_id <> $1 AND o.left_seq IS NULL
                """, [.int(userId)]
        ).map { try $0.decode(Int64.self, column: 0) }
        try db.execute(
            cached: "INSERT INTO account_deletions (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING", [.int(userId)])
        try db.execute(
            cached: """
                UPDATE users SET phone = 'deleted:' || id, password_hash = '', display_name = 'Deleted account', last_seen_at = NULL, time_zone = NULL, locale = NULL,
                handle = NULL, bio = '', protected = false, deleted_at = now() WHERE id = $1
                """, [.int(userId)])
        let sessions = try db.execute(
            cached: "UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL RETURNING id", [.int(userId)]
        ).map { try $0.decode(Int64.self, column: 0) }
        return DeletionRequest(sessionIds: sessions, friendIds: friends, contactIds: Array(Set(friends + members)).sorted())
    }

    /// Users whose deletion job is not finished, oldest first.
    public static func unfinished(_ db: PostgresConnection, limit: Int) throws -> [Int64] {
        try db.execute(
            cached: "SELECT user_id FROM account_deletions WHERE finished_at IS NULL ORDER BY requested_at LIMIT $1", [.int(limit)]
        ).map { try $0.decode(Int64.self, column: 0) }
    }

    /// Locks the unfinished job row of `userId` for the current transaction, skipping it when another node's batch
    /// holds it: false when the job is finished, absent or being worked elsewhere right now.
    static func claim(_ db: PostgresConnection, userId: Int64, step: DeletionStep?) throws -> Bool {
        guard
            try db.execute(
                cached: "SELECT user_id FROM account_deletions WHERE user_id = $1 AND finished_at IS NULL FOR UPDATE SKIP LOCKED",
                [.int(userId)]
            ).first != nil
        else { return false }
        try db.execute(cached: "UPDATE account_deletions SET step = $2 WHERE user_id = $1", [.int(userId), .text(step?.rawValue ?? "done")])
        return true
    }

    /// One batch of a step (its own transaction, under the job row's lock): the rows it changed (0: the step is
    /// done), the export files it released, or nil when the job is not ours to work (finished, or another node's
    /// batch holds it).
    public static func runBatch(_ db: PostgresConnection, userId: Int64, step: DeletionStep, limit: Int) throws -> (changed: Int, files: [String])? {
        try db.transaction { db -> (changed: Int, files: [String])? in
            guard try claim(db, userId: userId, step: step) else { return nil }
            let u = PostgresData.int(userId)
            let n = PostgresData.int(limit)
            switch step {
            case .memberships:
                // Conversation rows first (the writers' lock order), with their version bumped.
                let rows = try db.execute(
                    cached: """
                        UPDATE conversations c SET version = c.version + 1 FROM (
                            SELECT c2.id FROM conversations c2 JOIN members m ON m.conversation_id = c2.id
                            WHERE m.user_id = $1 AND m.left_seq IS NULL AND c2.kind = 'group' ORDER BY c2.id LIMIT $2
                        ) pick WHERE c.id = pick.id RETURNING c.id, c.last_seq
                        """, [u, n])
                for r in rows {
                    try db.execute(
                        cached: "UPDATE members SET left_seq = $3 WHERE conversation_id = $2 AND user_id = $1",
                        [u, .int(try r.decode(Int64.self, column: 0)), .int(try r.decode(Int64.self, column: 1))])
                }
                return (rows.count, [])
            case .messages:
                return (
                    try db.execute(
                        cached: """
                            UPDATE messages SET body = NULL, voice_id = NULL, deleted_at = COALESCE(deleted_at, now()), sender_deleted = true
                            WHERE id IN (SELECT id FROM messages WHERE sender_id = $1 AND kind <> 'system' AND NOT sender_deleted LIMIT $2)
                            """, [u, n]
                    ).affectedRows, []
                )
            case .reactions:
                return (
                    try db.execute(
                        cached: """
                            DELETE FROM message_reactions WHERE (message_id, user_id) IN (
                                SELECT message_id, user_id FROM message_reactions WHERE user_id = $1 LIMIT $2)
                            """, [u, n]
                    ).affectedRows, []
                )
            case .voiceClips:
                let unlinked = try db.execute(
                    cached: """
                        UPDATE messages SET voice_id = NULL WHERE id IN (
                            SELECT m.id FROM messages m JOIN voice_clips v ON v.id = m.voice_id WHERE v.uploader_id = $1 LIMIT $2)
                        """, [u, n]
                ).affectedRows
                if unlinked > 0 { return (unlinked, []) }
                return (
                    try db.execute(
                        cached: "DELETE FROM voice_clips WHERE id IN (SELECT id FROM voice_clips WHERE uploader_id = $1 LIMIT $2)", [u, n]
                    ).affectedRows, []
                )
            case .hiddenMessages:
                return (
                    try db.execute(
                        cached: """
                            DELETE FROM hidden_messages WHERE user_id = $1 AND message_id IN (
                                SELECT message_id FROM hidden_messages WHERE user_id = $1 LIMIT $2)
                            """, [u, n]
                    ).affectedRows, []
                )
            case .friendRequests:
                return (
                    try db.execute(
                        cached: """
                            DELETE FROM friend_requests WHERE id IN (
                                SELECT id FROM friend_requests WHERE from_user = $1 OR to_user = $1 LIMIT $2)
                            """, [u, n]
                    ).affectedRows, []
                )
            case .friendships:
                return (
                    try db.execute(
                        cached: """
                            DELETE FROM friendships WHERE (user_low, user_high) IN (
                                SELECT user_low, user_high FROM friendships WHERE user_low = $1 OR user_high = $1 LIMIT $2)
                            """, [u, n]
                    ).affectedRows, []
                )
            case .calls:
                return (
                    try db.execute(
                        cached: "DELETE FROM calls WHERE id IN (SELECT id FROM calls WHERE caller_id = $1 OR callee_id = $1 LIMIT $2)",
                        [u, n]
                    ).affectedRows, []
                )
            case .exports:
                let files = try db.execute(
                    cached: "DELETE FROM data_exports WHERE id IN (SELECT id FROM data_exports WHERE user_id = $1 LIMIT $2) RETURNING file",
                    [u, n]
                ).map { try $0.decode(String?.self, column: 0) }
                return (files.count, files.compactMap { $0 })
            case .eventParticipations:
                return (try CommunityRepository.dropParticipations(db, userId: userId, communityId: nil, endingAfter: nil, limit: limit).count, [])
            case .communities:
                return (try CommunityRepository.removeMemberships(db, userId: userId, limit: limit), [])
            case .lessonProgress:
                return (try CoursePostRepository.removeProgress(db, userId: userId, limit: limit), [])
            case .sessions:
                return (
                    try db.execute(
                        cached: "DELETE FROM sessions WHERE id IN (SELECT id FROM sessions WHERE user_id = $1 LIMIT $2)", [u, n]
                    ).affectedRows, []
                )
            case .activeHours:
                return (try ActiveHoursRepository.deleteBatch(db, userId: userId, limit: limit), [])
            case .follows:
                return (try SocialGraphRepository.deleteFollows(db, userId: userId, limit: limit), [])
            case .blocks:
                let blocks = try db.execute(
                    cached: """
                        DELETE FROM blocks WHERE (blocker_id, blocked_id) IN (
                            SELECT blocker_id, blocked_id FROM blocks WHERE blocker_id = $1 OR blocked_id = $1 LIMIT $2)
                        """, [u, n]
                ).affectedRows
                return (
                    blocks
                        + (try db.execute(
                            cached: """
                                DELETE FROM mutes WHERE (muter_id, muted_id) IN (
                                    SELECT muter_id, muted_id FROM mutes WHERE muter_id = $1 OR muted_id = $1 LIMIT $2)
                                """, [u, n]
                        ).affectedRows), []
                )
            case .likes:
                return (
                    try db.execute(
                        cached: """
                            WITH d AS (DELETE FROM likes WHERE (post_id, user_id) IN (
                                    SELECT post_id, user_id FROM likes WHERE user_id = $1 ORDER BY post_id LIMIT $2) RETURNING post_id),
                            c AS (UPDATE posts p SET like_count = greatest(0, p.like_count - 1) FROM d WHERE p.id = d.post_id RETURNING 1)
                            SELECT count(*) FROM d
                            """, [u, n]
                    ).decodeFirst(Int.self) ?? 0, []
                )
            case .posts:
                return (try SocialGraphRepository.deletePosts(db, userId: userId, limit: limit).count, [])
            case .socialNotifications:
                return (
                    try db.execute(
                        cached: """
                            DELETE FROM social_notifications WHERE id IN (
                                (SELECT id FROM social_notifications WHERE user_id = $1 LIMIT $2)
                                UNION ALL (SELECT id FROM social_notifications WHERE actor_id = $1 LIMIT $2))
                            """, [u, n]
                    ).affectedRows, []
                )
            case .momentLikes:
                return (
                    try db.execute(
                        cached: """
                            WITH d AS (DELETE FROM moment_likes WHERE (moment_id, user_id) IN (
                                    SELECT moment_id, user_id FROM moment_likes WHERE user_id = $1 ORDER BY moment_id LIMIT $2) RETURNING moment_id),
                            c AS (UPDATE moments m SET like_count = greatest(0, m.like_count - 1) FROM d WHERE m.id = d.moment_id RETURNING 1)
                            SELECT count(*) FROM d
                            """, [u, n]
                    ).decodeFirst(Int.self) ?? 0, []
                )
            case .moments:
                return (
                    try db.execute(cached: "DELETE FROM moments WHERE id IN (SELECT id FROM moments WHERE owner_id = $1 LIMIT $2)", [u, n]).affectedRows, []
                )
            case .photos:
                return (
                    try db.execute(cached: "DELETE FROM photos WHERE id IN (SELECT id FROM photos WHERE owner_id = $1 LIMIT $2)", [u, n]).affectedRows, []
                )
            case .uploads:
                return (
                    try db.execute(cached: "DELETE FROM uploads WHERE id IN (SELECT id FROM uploads WHERE owner_id = $1 LIMIT $2)", [u, n]).affectedRows, []
                )
            }
        }
    }

    /// The `posts` step's batch, as `runBatch`, returning the posts marked deleted (for LIVE's `postDeleted`).
    public static func runPostsBatch(_ db: PostgresConnection, userId: Int64, limit: Int) throws -> [SocialGraphRepository.DeletedPost]? {
        try db.transaction { db -> [SocialGraphRepository.DeletedPost]? in
            guard try claim(db, userId: userId, step: .posts) else { return nil }
            return try SocialGraphRepository.deletePosts(db, userId: userId, limit: limit)
        }
    }

    /// Marks the job finished (after every step ran dry); false when it was not ours to finish.
    public static func finish(_ db: PostgresConnection, userId: Int64) throws -> Bool {
        try db.transaction { db in
            guard try claim(db, userId: userId, step: nil) else { return false }
            try db.execute(cached: "UPDATE account_deletions SET finished_at = now() WHERE user_id = $1", [.int(userId)])
            return true
        }
    }
}

extension AccountService {
    /// Checks the password of a live account for `account.delete`: rate-limited like logins (per phone number and
    /// per address); `invalid_credentials` when wrong.
    public func verifyPassword(userId: Int64, password: String, address: String, now: UInt64) async throws(ServiceError) {
        guard password.utf8.count <= PasswordPolicy.maxLength else { throw ServiceError(.invalidCredentials, "wrong password") }
        let row: (String, String)?
        do {
            row = try await pool.withConnection { db -> (String, String)? in
                guard let r = try db.execute(cached: "SELECT phone, password_hash FROM users WHERE id = $1 AND deleted_at IS NULL", [.int(userId)]).first
                else { return nil }
                return (try r.decode(column: 0), try r.decode(column: 1))
            }
        } catch { throw ServiceError.from(error) }
        guard let (phone, hash) = row else { throw ServiceError(.invalidCredentials, "wrong password") }
        if let retry = limiter.attempt(phone: phone, address: address, now: now, cost: nodesSharingLimits()) {
            throw ServiceError(.rateLimited, "too many attempts; retry later", extra: ["retry_after_ms": Int64((retry + 999_999) / 1_000_000)])
        }
        let valid: Bool
        do { valid = try await hasher.verify(password, encoded: hash) } catch { throw ServiceError(.unavailable, "busy; retry shortly") }
        guard valid else { throw ServiceError(.invalidCredentials, "wrong password") }
    }
}
