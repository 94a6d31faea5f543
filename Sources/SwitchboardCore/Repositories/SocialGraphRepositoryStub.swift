// replaced by h/graph (SocialGraphRepository.swift): the contract's exact signatures, minimal bodies.

public import SwitchboardProtocol
public import SwitchboardStore

public enum SocialGraphRepository {
    public static func isBlockedEitherWay(_ db: PostgresConnection, _ a: Int64, _ b: Int64) throws -> Bool {
        try !db.execute(
            cached: "SELECT 1 FROM blocks WHERE (blocker_id = $1 AND blocked_id = $2) OR (blocker_id = $2 AND blocked_id = $1)",
            [.int(a), .int(b)]
        ).isEmpty
    }
    public static func canSeePosts(_ db: PostgresConnection, viewer: Int64, author: Int64) throws -> Bool {
        if viewer == author { return true }
        if try isBlockedEitherWay(db, viewer, author) { return false }
        return try !db.execute(
            cached: """
                SELECT 1 FROM users u WHERE u.id = $2 AND (NOT u.protected
                  OR EXISTS (SELECT 1 FROM follows f WHERE f.follower_id = $1 AND f.followee_id = $2 AND f.state = 'active'))
                """, [.int(viewer), .int(author)]
        ).isEmpty
    }
    public static func activeFolloweeIds(_ db: PostgresConnection, of user: Int64) throws -> [Int64] {
        try db.execute(cached: "SELECT followee_id FROM follows WHERE follower_id = $1 AND state = 'active'", [.int(user)]).decode(column: 0)
    }
    public static func mutedIds(_ db: PostgresConnection, of user: Int64) throws -> Set<Int64> {
        Set(try db.execute(cached: "SELECT muted_id FROM mutes WHERE muter_id = $1", [.int(user)]).decode(Int64.self, column: 0))
    }
    public static func blockedEitherWayIds(_ db: PostgresConnection, of user: Int64) throws -> Set<Int64> {
        Set(
            try db.execute(
                cached: "SELECT blocked_id FROM blocks WHERE blocker_id = $1 UNION SELECT blocker_id FROM blocks WHERE blocked_id = $1", [.int(user)]
            ).decode(Int64.self, column: 0))
    }
    public static func userIds(_ db: PostgresConnection, handles: [String]) throws -> [String: Int64] {
        var out: [String: Int64] = [:]
        for r in try db.execute(
            cached: "SELECT lower(handle), id FROM users WHERE lower(handle) = ANY($1::text[]) AND deleted_at IS NULL",
            [.text(MessageStore.textArray(handles))])
        {
            out[try r.decode(column: 0)] = try r.decode(column: 1)
        }
        return out
    }
    public static func hasHandle(_ db: PostgresConnection, _ user: Int64) throws -> Bool {
        try !db.execute(cached: "SELECT 1 FROM users WHERE id = $1 AND handle IS NOT NULL", [.int(user)]).isEmpty
    }
    public static func socialUsers(_ db: PostgresConnection, ids: [Int64]) throws -> [Int64: SocialUser] {
        var out: [Int64: SocialUser] = [:]
        for r in try db.execute(
            cached: "SELECT id, display_name, handle, protected FROM users WHERE id = ANY($1::bigint[])", [.text(MessageStore.bigintArray(ids))])
        {
            let id: Int64 = try r.decode(column: 0)
            out[id] = SocialUser(userId: id, displayName: try r.decode(column: 1), handle: try r.decode(column: 2), protected: try r.decode(column: 3))
        }
        return out
    }
}
