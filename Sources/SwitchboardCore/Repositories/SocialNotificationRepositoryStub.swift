// replaced by h/live (SocialNotificationRepository.swift): the contract's exact signatures, minimal bodies.

public import SwitchboardStore

public enum SocialNotificationKind: String, Sendable, Codable { case follow, followRequest = "follow_request", like, repost, reply, mention }

public enum SocialNotifications {
    public static func record(_ db: PostgresConnection, userId: Int64, kind: SocialNotificationKind, actorId: Int64, postId: Int64?) throws -> Int64? {
        guard userId != actorId else { return nil }
        return try db.execute(
            cached: """
                INSERT INTO social_notifications (user_id, kind, actor_id, post_id)
                SELECT $1, $2, $3, $4
                WHERE NOT EXISTS (SELECT 1 FROM blocks WHERE (blocker_id = $1 AND blocked_id = $3) OR (blocker_id = $3 AND blocked_id = $1))
                  AND NOT EXISTS (SELECT 1 FROM mutes WHERE muter_id = $1 AND muted_id = $3)
                ON CONFLICT DO NOTHING RETURNING id
                """, [.int(userId), .text(kind.rawValue), .int(actorId), postId.map { .int($0) }]
        ).decodeFirst(Int64.self)
    }
}
