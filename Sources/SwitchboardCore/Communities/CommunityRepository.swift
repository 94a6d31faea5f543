//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore

/// The SQL of communities and their members. Every function takes the connection it runs on; none opens a
/// transaction of its own.
public enum CommunityRepository {
    /// The ids of the community's members (whom `community.notification` and `community.updated` go to).
    public static func memberIds(_ db: PostgresConnection, communityId: Int64) throws -> [Int64] {
        try db.execute(cached: "SELECT user_id FROM community_members WHERE community_id = $1", [.int(communityId)]).map
        {
            try $0.decode(column: 0)
        }
    }

    /// The user's standing in the community, nil when there is no such community.
    public static func membership(_ db: PostgresConnection, communityId: Int64, userId: Int64) throws
        -> CommunityMembership?
    {
        let sql = """
            SELECT c.archived_at IS NOT NULL, m.role, COALESCE(m.read_seq, 0), c.last_seq,
                   EXISTS (SELECT 1 FROM users u WHERE u.id = $2 AND u.role = 'admin' AND u.suspended_at IS NULL)
            FROM communities c LEFT JOIN community_members m ON m.community_id = c.id AND m.user_id = $2
            WHERE c.id = $1
            """
        guard let r = try db.execute(cached: sql, [.int(communityId), .int(userId)]).first else { return nil }
        return CommunityMembership(
            communityId: communityId, archived: try r.decode(column: 0), role: try r.decode(column: 1),
            administrator: try r.decode(column: 4),
            readSeq: try r.decode(column: 2), lastSeq: try r.decode(column: 3))
    }

    /// `membership` with the members-only rule applied (`CommunityMembership.requireReader`): `noSuchCommunity` for
    /// no such (or an invisible archived) community, `membersOnly` for a non-member who is not an administrator.
    public static func requireReader(_ db: PostgresConnection, communityId: Int64, userId: Int64) throws
        -> CommunityMembership
    {
        guard let m = try membership(db, communityId: communityId, userId: userId) else {
            throw CommunityError.noSuchCommunity
        }
        try m.requireReader()
        return m
    }
}

extension CommunityRepository {
    /// The columns `communityRow` reads; `$1` is the viewing user.
    static let communityColumns = """
        c.id, c.name, c.description, c.category, c.picture, c.member_count, m.role,
        CASE WHEN m.user_id IS NULL THEN 0 ELSE GREATEST(c.last_seq - m.read_seq, 0) END,
        c.archived_at IS NOT NULL, \(WireTimestamp.sql("c.created_at"))
        """

    static func communityRow(_ r: PostgresRow) throws -> Community {
        let role: String? = try r.decode(column: 6)
        return Community(
            communityId: try r.decode(column: 0), name: try r.decode(column: 1), description: try r.decode(column: 2),
            category: try r.decode(column: 3), picture: try r.decode(column: 4), memberCount: try r.decode(column: 5),
            joined: role != nil,
            role: role, unread: try r.decode(column: 7), archived: try r.decode(column: 8),
            createdAt: try r.decode(column: 9))
    }

    /// The community as `userId` sees it (nil when there is none; visibility is the caller's business).
    public static func community(_ db: PostgresConnection, id: Int64, userId: Int64) throws -> Community? {
        try db.execute(
            cached: """
                SELECT \(communityColumns)
                FROM communities c LEFT JOIN community_members m ON m.community_id = c.id AND m.user_id = $1
                WHERE c.id = $2
                """, [.int(userId), .int(id)]
        ).first.map(communityRow)
    }

    /// The user's stored locale (nil: the default).
    public static func locale(_ db: PostgresConnection, userId: Int64) throws -> String? {
        try db.execute(cached: "SELECT locale FROM users WHERE id = $1", [.int(userId)]).decodeFirst(String?.self)
            ?? nil
    }

    /// A page of the communities `userId` sees: joined first, then the others (live ones; archived ones only to
    /// their members and to administrators), each part by lower(name) under `collation` (an ICU collation from
    /// `CommunityCollation.name`), then id; after `cursor`. Returns the rows and each row's cursor.
    public static func list(
        _ db: PostgresConnection, userId: Int64, administrator: Bool, collation: String, after cursor: CommunityCursor?,
        limit: Int
    ) throws -> [(community: Community, cursor: CommunityCursor)] {
        precondition(CommunityCollation.isSafeName(collation), "collation \(collation)")
        let key = "lower(c.name COLLATE \"und-x-icu\") COLLATE \"\(collation)\""
        let part = "(CASE WHEN m.user_id IS NULL THEN 1 ELSE 0 END)"
        let sql = """
            SELECT \(communityColumns), \(part), lower(c.name COLLATE "und-x-icu")
            FROM communities c LEFT JOIN community_members m ON m.community_id = c.id AND m.user_id = $1
            WHERE (c.archived_at IS NULL OR m.user_id IS NOT NULL OR $2)
              AND ($3::int IS NULL OR (\(part), \(key), c.id) > ($3::int, $4::text COLLATE "\(collation)", $5::bigint))
            ORDER BY \(part), \(key), c.id
            LIMIT $6
            """
        return try db.execute(
            cached: sql,
            [
                .int(userId), .bool(administrator), cursor.map { .int(Int64($0.part)) }, cursor.map { .text($0.key) },
                cursor.map { .int($0.id) }, .int(Int64(limit)),
            ]
        ).map { r in
            let community = try communityRow(r)
            return (
                community,
                CommunityCursor(
                    part: try r.decode(Int.self, column: 10), key: try r.decode(column: 11), id: community.communityId)
            )
        }
    }

    /// The user's unread counts: joined communities with unread notifications, by id.
    public static func unread(_ db: PostgresConnection, userId: Int64) throws -> [CommunityUnread] {
        try db.execute(
            cached: """
                SELECT m.community_id, c.last_seq - m.read_seq
                FROM community_members m JOIN communities c ON c.id = m.community_id
                WHERE m.user_id = $1 AND c.last_seq > m.read_seq ORDER BY m.community_id
                """, [.int(userId)]
        ).map { CommunityUnread(communityId: try $0.decode(column: 0), unread: try $0.decode(column: 1)) }
    }

    /// The sum of the user's unread counts.
    public static func unreadTotal(_ db: PostgresConnection, userId: Int64) throws -> Int64 {
        try db.execute(
            cached: """
                SELECT COALESCE(SUM(c.last_seq - m.read_seq), 0)::bigint
                FROM community_members m JOIN communities c ON c.id = m.community_id
                WHERE m.user_id = $1 AND c.last_seq > m.read_seq
                """, [.int(userId)]
        ).decodeFirst(Int64.self) ?? 0
    }

    /// Whether a live community has this name (case-insensitively), other than `except`.
    public static func nameTaken(_ db: PostgresConnection, _ name: String, except: Int64? = nil) throws -> Bool {
        !(try db.execute(
            cached: "SELECT 1 FROM communities WHERE lower(name) = lower($1) AND archived_at IS NULL AND id <> $2",
            [.text(name), .int(except ?? 0)]
        ).isEmpty)
    }

    /// Creates a community; its id. `nameTaken` when a live community has the name.
    public static func create(
        _ db: PostgresConnection, name: String, description: String, category: String, picture: String?,
        createdBy: Int64
    ) throws -> Int64 {
        if try nameTaken(db, name) { throw CommunityError.nameTaken }
        do {
            return try db.execute(
                cached: """
                    INSERT INTO communities (name, description, category, picture, created_by)
                    VALUES ($1, $2, $3, $4, $5) RETURNING id
                    """,
                [.text(name), .text(description), .text(category), picture.map { .text($0) }, .int(createdBy)]
            ).decodeFirst(Int64.self) ?? 0
        } catch let error as PostgresError where error.sqlState == "23505" {
            throw CommunityError.nameTaken
        }
    }

    /// Changes the given fields (`picture` "" removes it); false when there is no such community.
    public static func update(
        _ db: PostgresConnection, id: Int64, name: String?, description: String?, category: String?, picture: String?
    ) throws -> Bool {
        if let name, try nameTaken(db, name, except: id) { throw CommunityError.nameTaken }
        do {
            return
                !(try db.execute(
                    cached: """
                        UPDATE communities SET name = COALESCE($2, name), description = COALESCE($3, description),
                            category = COALESCE($4, category),
                            picture = CASE WHEN $5::text IS NULL THEN picture ELSE NULLIF($5, '') END,
                            updated_at = now()
                        WHERE id = $1 RETURNING id
                        """,
                    [
                        .int(id), name.map { .text($0) }, description.map { .text($0) }, category.map { .text($0) },
                        picture.map { .text($0) },
                    ]
                ).isEmpty)
        } catch let error as PostgresError where error.sqlState == "23505" {
            throw CommunityError.nameTaken
        }
    }

    /// Archives a community (once); false when there is no such community.
    public static func archive(_ db: PostgresConnection, id: Int64) throws -> Bool {
        !(try db.execute(
            cached: """
                UPDATE communities SET archived_at = COALESCE(archived_at, now()), updated_at = now()
                WHERE id = $1 RETURNING id
                """,
            [.int(id)]
        ).isEmpty)
    }

    /// Joins a live community, the marker at its newest notification (nothing is unread on joining).
    /// `noSuchCommunity` for no such or an archived community, `alreadyMember` for a member.
    public static func join(_ db: PostgresConnection, communityId: Int64, userId: Int64) throws {
        // The community's row lock first, as `publish` takes it: the marker starts at a settled last_seq.
        guard
            let lastSeq = try db.execute(
                cached: """
                    UPDATE communities SET member_count = member_count + 1
                    WHERE id = $1 AND archived_at IS NULL RETURNING last_seq
                    """,
                [.int(communityId)]
            ).decodeFirst(Int64.self)
        else { throw CommunityError.noSuchCommunity }
        let inserted = try db.execute(
            cached: """
                INSERT INTO community_members (community_id, user_id, read_seq) VALUES ($1, $2, $3)
                ON CONFLICT DO NOTHING RETURNING user_id
                """, [.int(communityId), .int(userId), .int(lastSeq)])
        if inserted.isEmpty { throw CommunityError.alreadyMember }
    }

    /// Leaves a community: removes the membership and the user's participations in the community's events that
    /// have not ended at `now` (their counts decremented); the dropped events' ids. `noSuchCommunity` for no
    /// such community (or an archived one the user is not in), `notAMember` for a non-member.
    public static func quit(_ db: PostgresConnection, communityId: Int64, userId: Int64, now: Date) throws -> [Int64] {
        let removed = try db.execute(
            cached: "DELETE FROM community_members WHERE community_id = $1 AND user_id = $2 RETURNING user_id",
            [.int(communityId), .int(userId)])
        if removed.isEmpty {
            guard let m = try membership(db, communityId: communityId, userId: userId), m.visible else {
                throw CommunityError.noSuchCommunity
            }
            throw CommunityError.notAMember
        }
        try db.execute(
            cached: "UPDATE communities SET member_count = member_count - 1 WHERE id = $1", [.int(communityId)])
        return try dropParticipations(db, userId: userId, communityId: communityId, endingAfter: now)
    }

    /// Removes the user's participations in events (of one community, or all when nil) that end after
    /// `endingAfter` (all when nil), at most `limit` of them (account deletion's batches), decrementing their
    /// counts; the events' ids in ascending order. The events' rows are locked first, in id order (as
    /// `events.join` and `events.drop` lock the event before its participants).
    public static func dropParticipations(
        _ db: PostgresConnection, userId: Int64, communityId: Int64?, endingAfter: Date?, limit: Int? = nil
    ) throws -> [Int64] {
        let ids: [Int64] = try db.execute(
            cached: """
                SELECT e.id FROM community_events e JOIN event_participants p ON p.event_id = e.id AND p.user_id = $1
                WHERE ($2::bigint IS NULL OR e.community_id = $2) AND ($3::timestamptz IS NULL OR e.ends_at > $3)
                ORDER BY e.id LIMIT $4 FOR UPDATE OF e
                """,
            [
                .int(userId), communityId.map { .int($0) }, endingAfter.map { .timestamp($0) },
                limit.map { .int(Int64($0)) },
            ]
        ).map { try $0.decode(column: 0) }
        guard !ids.isEmpty else { return [] }
        let list = "{" + ids.map(String.init).joined(separator: ",") + "}"
        let dropped: [Int64] = try db.execute(
            cached:
                "DELETE FROM event_participants WHERE user_id = $1 AND event_id = ANY($2::bigint[]) RETURNING event_id",
            [.int(userId), .text(list)]
        ).map { try $0.decode(column: 0) }
        let droppedList = "{" + dropped.map(String.init).joined(separator: ",") + "}"
        try db.execute(
            cached:
                "UPDATE community_events SET participant_count = participant_count - 1 WHERE id = ANY($1::bigint[])",
            [.text(droppedList)])
        return dropped.sorted()
    }

    /// A page of members: core members first, then by display name (lowered, under `collation`), then id.
    public static func members(
        _ db: PostgresConnection, communityId: Int64, collation: String, after cursor: CommunityCursor?, limit: Int
    ) throws -> [(member: CommunityMember, cursor: CommunityCursor)] {
        precondition(CommunityCollation.isSafeName(collation), "collation \(collation)")
        let key = "lower(u.display_name COLLATE \"und-x-icu\") COLLATE \"\(collation)\""
        let part = "(CASE WHEN m.role = 'core' THEN 0 ELSE 1 END)"
        let sql = """
            SELECT u.id, u.display_name, m.role, \(WireTimestamp.sql("m.joined_at")), \(part),
                   lower(u.display_name COLLATE "und-x-icu")
            FROM community_members m JOIN users u ON u.id = m.user_id
            WHERE m.community_id = $1
              AND ($2::int IS NULL OR (\(part), \(key), u.id) > ($2::int, $3::text COLLATE "\(collation)", $4::bigint))
            ORDER BY \(part), \(key), u.id
            LIMIT $5
            """
        return try db.execute(
            cached: sql,
            [
                .int(communityId), cursor.map { .int(Int64($0.part)) }, cursor.map { .text($0.key) },
                cursor.map { .int($0.id) }, .int(Int64(limit)),
            ]
        ).map { r in
            let member = CommunityMember(
                user: UserSummary(userId: try r.decode(column: 0), displayName: try r.decode(column: 1)),
                role: try r.decode(column: 2),
                joinedAt: try r.decode(column: 3))
            return (
                member,
                CommunityCursor(
                    part: try r.decode(Int.self, column: 4), key: try r.decode(column: 5), id: member.user.userId)
            )
        }
    }

    /// Appoints or removes a core member; nil when the user is not a member, else whether the role changed.
    public static func setCore(_ db: PostgresConnection, communityId: Int64, userId: Int64, core: Bool) throws -> Bool?
    {
        guard
            let old = try db.execute(
                cached: "SELECT role FROM community_members WHERE community_id = $1 AND user_id = $2 FOR UPDATE",
                [.int(communityId), .int(userId)]
            ).decodeFirst(String.self)
        else { return nil }
        let role = core ? "core" : "member"
        guard old != role else { return false }
        try db.execute(
            cached: "UPDATE community_members SET role = $3 WHERE community_id = $1 AND user_id = $2",
            [.int(communityId), .int(userId), .text(role)])
        return true
    }

    /// A page of notifications, newest first, before `beforeSeq`.
    public static func notifications(_ db: PostgresConnection, communityId: Int64, beforeSeq: Int64?, limit: Int) throws
        -> [CommunityNotification]
    {
        try db.execute(
            cached: """
                SELECT n.community_id, n.seq, n.kind, n.event_id, n.post_id, n.actor_id, u.display_name, n.title,
                       \(WireTimestamp.sql("n.created_at"))
                FROM community_notifications n LEFT JOIN users u ON u.id = n.actor_id
                WHERE n.community_id = $1 AND n.seq < $2 ORDER BY n.seq DESC LIMIT $3
                """, [.int(communityId), .int(beforeSeq ?? Int64.max), .int(Int64(limit))]
        ).map { r in
            let actorId: Int64? = try r.decode(column: 5)
            let actorName: String? = try r.decode(column: 6)
            return CommunityNotification(
                communityId: try r.decode(column: 0), seq: try r.decode(column: 1), kind: try r.decode(column: 2),
                eventId: try r.decode(column: 3),
                postId: try r.decode(column: 4),
                actor: actorId.flatMap { id in actorName.map { UserSummary(userId: id, displayName: $0) } },
                title: try r.decode(column: 7), createdAt: try r.decode(column: 8))
        }
    }

    /// Moves the member's marker forward to `seq` (default, and at most, the newest); the marker and the
    /// community's newest seq after it, nil when the user is not a member.
    public static func read(_ db: PostgresConnection, communityId: Int64, userId: Int64, seq: Int64?) throws -> (
        readSeq: Int64, lastSeq: Int64
    )? {
        guard
            let r = try db.execute(
                cached: """
                    UPDATE community_members m
                    SET read_seq = GREATEST(m.read_seq, LEAST(COALESCE($3, c.last_seq), c.last_seq))
                    FROM communities c WHERE c.id = m.community_id AND m.community_id = $1 AND m.user_id = $2
                    RETURNING m.read_seq, c.last_seq
                    """, [.int(communityId), .int(userId), seq.map { .int($0) }]
            ).first
        else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// The communities the user is a member of (export): id, name, role, joined_at, read_seq.
    public static func memberships(_ db: PostgresConnection, userId: Int64) throws -> [(
        communityId: Int64, name: String, role: String, joinedAt: String
    )] {
        try db.execute(
            cached: """
                SELECT c.id, c.name, m.role, \(WireTimestamp.sql("m.joined_at"))
                FROM community_members m JOIN communities c ON c.id = m.community_id WHERE m.user_id = $1 ORDER BY c.id
                """, [.int(userId)]
        ).map {
            (try $0.decode(column: 0), try $0.decode(column: 1), try $0.decode(column: 2), try $0.decode(column: 3))
        }
    }

    /// Account deletion: removes up to `limit` of the user's memberships (member counts decremented); how many.
    public static func removeMemberships(_ db: PostgresConnection, userId: Int64, limit: Int) throws -> Int {
        let ids: [Int64] = try db.execute(
            cached: """
                DELETE FROM community_members WHERE (community_id, user_id) IN (
                    SELECT community_id, user_id FROM community_members WHERE user_id = $1
                    ORDER BY community_id LIMIT $2)
                RETURNING community_id
                """, [.int(userId), .int(Int64(limit))]
        ).map { try $0.decode(column: 0) }
        guard !ids.isEmpty else { return 0 }
        try db.execute(
            cached: "UPDATE communities SET member_count = member_count - 1 WHERE id = ANY($1::bigint[])",
            [.text("{" + ids.map(String.init).joined(separator: ",") + "}")])
        return ids.count
    }
}
