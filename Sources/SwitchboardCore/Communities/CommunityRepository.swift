//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
public import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore
import Synchronization

/// The community notifications (`docs/protocol.md`, "Communities"): the one notifier that events,
/// announcements and lessons publish through.
public enum CommunityNotifications {
    /// Publishes a notification inside the caller's transaction: bumps `communities.last_seq` (its row lock orders
    /// the community's publications), inserts the notification, and advances the actor's own `read_seq` when the
    /// actor is a member that had read everything before (its own publication is not unread to it). After the
    /// commit, the caller pushes `community.notification` to `CommunityRepository.memberIds` (the server's
    /// `CommunitiesFeature.pushNotification`). `not_found` when there is no such community.
    public static func publish(
        _ db: PostgresConnection, communityId: Int64, kind: String, eventId: Int64? = nil, postId: Int64? = nil, actorId: Int64?,
        title: String
    ) throws -> CommunityNotification {
        guard CommunityNotification.kinds.contains(kind) else { throw ServiceError(.internal, "unknown notification kind \(kind)") }
        guard
            let seq = try db.execute(
                cached: "UPDATE communities SET last_seq = last_seq + 1 WHERE id = $1 RETURNING last_seq", [.int(communityId)]
            ).decodeFirst(Int64.self)
        else { throw ServiceError(.notFound, "no such community") }
        guard
            let r = try db.execute(
                cached: """
                    INSERT INTO community_notifications (community_id, seq, kind, event_id, post_id, actor_id, title)
                    VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING \(WireTimestamp.sql("created_at"))
                    """,
                [.int(communityId), .int(seq), .text(kind), eventId.map { .int($0) }, postId.map { .int($0) }, actorId.map { .int($0) }, .text(title)]
            ).first
        else { throw ServiceError(.internal, "internal error") }
        var actor: UserSummary?
        if let actorId {
            try db.execute(
                cached: "UPDATE community_members SET read_seq = $3 WHERE community_id = $1 AND user_id = $2 AND read_seq = $3 - 1",
                [.int(communityId), .int(actorId), .int(seq)])
            if let name = try db.execute(cached: "SELECT display_name FROM users WHERE id = $1", [.int(actorId)]).decodeFirst(String.self) {
                actor = UserSummary(userId: actorId, displayName: name)
            }
        }
        return CommunityNotification(
            communityId: communityId, seq: seq, kind: kind, eventId: eventId, postId: postId, actor: actor, title: title,
            createdAt: try r.decode(column: 0))
    }
}

/// A user's standing in one community (`CommunityRepository.membership`).
public struct CommunityMembership: Sendable, Equatable {
    public var communityId: Int64
    public var archived: Bool
    /// `member` or `core`; nil when the user is not a member.
    public var role: String?
    /// Whether the user is an administrator (and not suspended).
    public var administrator: Bool
    /// The member's marker (0 for a non-member) and the community's newest notification seq.
    public var readSeq: Int64
    public var lastSeq: Int64

    public init(communityId: Int64, archived: Bool, role: String?, administrator: Bool, readSeq: Int64, lastSeq: Int64) {
        self.communityId = communityId
        self.archived = archived
        self.role = role
        self.administrator = administrator
        self.readSeq = readSeq
        self.lastSeq = lastSeq
    }

    public var isMember: Bool { role != nil }
    public var isCore: Bool { role == "core" }
    /// Whether the user sees the community at all: live ones everyone, archived ones their members and admins.
    public var visible: Bool { !archived || isMember || administrator }

    /// The rule for members-only content (events, members, notifications, posts, calendar entries): `not_found`
    /// when the community is not visible to the user, `forbidden` when the user is neither member nor admin.
    public func requireReader() throws(ServiceError) {
        guard visible else { throw ServiceError(.notFound, "no such community") }
        guard isMember || administrator else { throw ServiceError(.forbidden, "members only") }
    }
}

/// The SQL of communities and their members. Every function takes the connection it runs on; none opens a
/// transaction of its own.
public enum CommunityRepository {
    /// The ids of the community's members (whom `community.notification` and `community.updated` go to).
    public static func memberIds(_ db: PostgresConnection, communityId: Int64) throws -> [Int64] {
        try db.execute(cached: "SELECT user_id FROM community_members WHERE community_id = $1", [.int(communityId)]).map {
            try $0.decode(column: 0)
        }
    }

    /// The user's standing in the community, nil when there is no such community.
    public static func membership(_ db: PostgresConnection, communityId: Int64, userId: Int64) throws -> CommunityMembership? {
        let sql = """
            SELECT c.archived_at IS NOT NULL, m.role, COALESCE(m.read_seq, 0), c.last_seq,
                   EXISTS (SELECT 1 FROM users u WHERE u.id = $2 AND u.role = 'admin' AND u.suspended_at IS NULL)
            FROM communities c LEFT JOIN community_members m ON m.community_id = c.id AND m.user_id = $2
            WHERE c.id = $1
            """
        guard let r = try db.execute(cached: sql, [.int(communityId), .int(userId)]).first else { return nil }
        return CommunityMembership(
            communityId: communityId, archived: try r.decode(column: 0), role: try r.decode(column: 1), administrator: try r.decode(column: 4),
            readSeq: try r.decode(column: 2), lastSeq: try r.decode(column: 3))
    }

    /// `membership` with the members-only rule applied (`CommunityMembership.requireReader`): `not_found` for no
    /// such (or an invisible archived) community, `forbidden` for a non-member who is not an administrator.
    public static func requireReader(_ db: PostgresConnection, communityId: Int64, userId: Int64) throws -> CommunityMembership {
        guard let m = try membership(db, communityId: communityId, userId: userId) else {
            throw ServiceError(.notFound, "no such community")
        }
        try m.requireReader()
        return m
    }
}

/// Where a page of `communities.list` or `communities.members` starts: after the row with this sort key. Opaque on
/// the wire (`encoded`).
public struct CommunityCursor: Sendable, Equatable {
    /// The part: 0 joined (core for members), 1 the others.
    public var part: Int
    /// The row's name, lowered (what the collation compares).
    public var key: String
    public var id: Int64

    public init(part: Int, key: String, id: Int64) {
        self.part = part
        self.key = key
        self.id = id
    }

    /// `part.id.key` in base64url (the key last: it may hold any character).
    public var encoded: String {
        SessionToken.base64url(Array("\(part).\(id).\(key)".utf8))
    }

    /// The cursor `encoded` made, nil when it is not one.
    public init?(encoded: String) {
        guard encoded.utf8.count <= 2048, let bytes = SessionToken.decodeBase64url(encoded), let text = String(validating: bytes, as: UTF8.self)
        else { return nil }
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let part = Int(parts[0]), part == 0 || part == 1, let id = Int64(parts[1]) else { return nil }
        self.init(part: part, key: String(parts[2]), id: id)
    }
}

/// The ICU collation that orders names in a user's locale.
public enum CommunityCollation {
    private static let known = Mutex<Set<String>?>(nil)

    /// The name of the ICU collation for a BCP 47 locale (`fr-FR`): `fr-FR-x-icu` when PostgreSQL has it, else the
    /// language's (`fr-x-icu`), else the root collation `und-x-icu`. Only names read from `pg_collation` are
    /// returned (they are put in SQL text).
    public static func name(_ db: PostgresConnection, locale: String?) throws -> String {
        let names: Set<String>
        if let cached = known.withLock({ $0 }) {
            names = cached
        } else {
            names = Set(
                try db.execute(cached: "SELECT collname FROM pg_collation WHERE collprovider = 'i'").map { try $0.decode(String.self, column: 0) }
                    .filter(isSafeName))
            known.withLock { $0 = names }
        }
        let tag = (locale ?? "en-US").replacingOccurrences(of: "_", with: "-")
        var candidates = ["\(tag)-x-icu"]
        if let language = tag.split(separator: "-").first { candidates.append("\(language)-x-icu") }
        for candidate in candidates {
            if let found = names.first(where: { $0.caseInsensitiveCompare(candidate) == .orderedSame }) { return found }
        }
        guard names.contains("und-x-icu") else { throw ServiceError(.internal, "PostgreSQL lacks ICU collations") }
        return "und-x-icu"
    }

    /// Whether a collation name can be put in SQL text between double quotes (letters, digits, `-`, `_`).
    static func isSafeName(_ name: String) -> Bool {
        !name.isEmpty && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
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
            category: try r.decode(column: 3), picture: try r.decode(column: 4), memberCount: try r.decode(column: 5), joined: role != nil,
            role: role, unread: try r.decode(column: 7), archived: try r.decode(column: 8), createdAt: try r.decode(column: 9))
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
        try db.execute(cached: "SELECT locale FROM users WHERE id = $1", [.int(userId)]).decodeFirst(String?.self) ?? nil
    }

    /// A page of the communities `userId` sees: joined first, then the others (live ones; archived ones only to
    /// their members and to administrators), each part by lower(name) under `collation` (an ICU collation from
    /// `CommunityCollation.name`), then id; after `cursor`. Returns the rows and each row's cursor.
    public static func list(
        _ db: PostgresConnection, userId: Int64, administrator: Bool, collation: String, after cursor: CommunityCursor?, limit: Int
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
            return (community, CommunityCursor(part: try r.decode(Int.self, column: 10), key: try r.decode(column: 11), id: community.communityId))
        }
    }

    /// The user's unread counts: joined communities with unread notifications, by id.
    public static func unread(_ db: PostgresConnection, userId: Int64) throws -> [CommunityUnread] {
        try db.execute(
            cached: """
                SELECT m.community_id, c.last_seq - m.read_seq FROM community_members m JOIN communities c ON c.id = m.community_id
                WHERE m.user_id = $1 AND c.last_seq > m.read_seq ORDER BY m.community_id
                """, [.int(userId)]
        ).map { CommunityUnread(communityId: try $0.decode(column: 0), unread: try $0.decode(column: 1)) }
    }

    /// The sum of the user's unread counts.
    public static func unreadTotal(_ db: PostgresConnection, userId: Int64) throws -> Int64 {
        try db.execute(
            cached: """
                SELECT COALESCE(SUM(c.last_seq - m.read_seq), 0)::bigint FROM community_members m JOIN communities c ON c.id = m.community_id
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

    /// Creates a community; its id. `bad_request` when a live community has the name.
    public static func create(
        _ db: PostgresConnection, name: String, description: String, category: String, picture: String?, createdBy: Int64
    ) throws -> Int64 {
        if try nameTaken(db, name) { throw ServiceError.communityNameTaken }
        do {
            return try db.execute(
                cached: "INSERT INTO communities (name, description, category, picture, created_by) VALUES ($1, $2, $3, $4, $5) RETURNING id",
                [.text(name), .text(description), .text(category), picture.map { .text($0) }, .int(createdBy)]
            ).decodeFirst(Int64.self) ?? 0
        } catch let error as PostgresError where error.sqlState == "23505" {
            throw ServiceError.communityNameTaken
        }
    }

    /// Changes the given fields (`picture` "" removes it); false when there is no such community.
    public static func update(
        _ db: PostgresConnection, id: Int64, name: String?, description: String?, category: String?, picture: String?
    ) throws -> Bool {
        if let name, try nameTaken(db, name, except: id) { throw ServiceError.communityNameTaken }
        do {
            return !(try db.execute(
                cached: """
                    UPDATE communities SET name = COALESCE($2, name), description = COALESCE($3, description),
                        category = COALESCE($4, category), picture = CASE WHEN $5::text IS NULL THEN picture ELSE NULLIF($5, '') END,
                        updated_at = now()
                    WHERE id = $1 RETURNING id
                    """, [.int(id), name.map { .text($0) }, description.map { .text($0) }, category.map { .text($0) }, picture.map { .text($0) }]
            ).isEmpty)
        } catch let error as PostgresError where error.sqlState == "23505" {
            throw ServiceError.communityNameTaken
        }
    }

    /// Archives a community (once); false when there is no such community.
    public static func archive(_ db: PostgresConnection, id: Int64) throws -> Bool {
        !(try db.execute(
            cached: "UPDATE communities SET archived_at = COALESCE(archived_at, now()), updated_at = now() WHERE id = $1 RETURNING id",
            [.int(id)]
        ).isEmpty)
    }

    /// Joins a live community, the marker at its newest notification (nothing is unread on joining).
    /// `not_found` for no such or an archived community, `already_member` for a member.
    public static func join(_ db: PostgresConnection, communityId: Int64, userId: Int64) throws {
        // The community's row lock first, as `publish` takes it: the marker starts at a settled last_seq.
        guard
            let lastSeq = try db.execute(
                cached: "UPDATE communities SET member_count = member_count + 1 WHERE id = $1 AND archived_at IS NULL RETURNING last_seq",
                [.int(communityId)]
            ).decodeFirst(Int64.self)
        else { throw ServiceError(.notFound, "no such community") }
        let inserted = try db.execute(
            cached: """
                INSERT INTO community_members (community_id, user_id, read_seq) VALUES ($1, $2, $3)
                ON CONFLICT DO NOTHING RETURNING user_id
                """, [.int(communityId), .int(userId), .int(lastSeq)])
        if inserted.isEmpty { throw ServiceError(.alreadyMember, "already a member of this community") }
    }

    /// Leaves a community: removes the membership and the user's participations in the community's events that
    /// have not ended at `now` (their counts decremented); the dropped events' ids. `not_found` for no such
    /// community (or an archived one the user is not in), `forbidden` for a non-member.
    public static func quit(_ db: PostgresConnection, communityId: Int64, userId: Int64, now: Date) throws -> [Int64] {
        let removed = try db.execute(
            cached: "DELETE FROM community_members WHERE community_id = $1 AND user_id = $2 RETURNING user_id", [.int(communityId), .int(userId)])
        if removed.isEmpty {
            guard let m = try membership(db, communityId: communityId, userId: userId), m.visible else {
                throw ServiceError(.notFound, "no such community")
            }
            throw ServiceError(.forbidden, "not a member")
        }
        try db.execute(cached: "UPDATE communities SET member_count = member_count - 1 WHERE id = $1", [.int(communityId)])
        return try dropParticipations(db, userId: userId, communityId: communityId, endingAfter: now)
    }

    /// Removes the user's participations in events (of one community, or all when nil) that end after
    /// `endingAfter` (all when nil), at most `limit` of them (account deletion's batches), decrementing their counts; the events' ids in ascending order. The events'
    /// rows are locked first, in id order (as `events.join` and `events.drop` lock the event before its
    /// participants).
    public static func dropParticipations(
        _ db: PostgresConnection, userId: Int64, communityId: Int64?, endingAfter: Date?, limit: Int? = nil
    ) throws -> [Int64] {
        let ids: [Int64] = try db.execute(
            cached: """
                SELECT e.id FROM community_events e JOIN event_participants p ON p.event_id = e.id AND p.user_id = $1
                WHERE ($2::bigint IS NULL OR e.community_id = $2) AND ($3::timestamptz IS NULL OR e.ends_at > $3)
                ORDER BY e.id LIMIT $4 FOR UPDATE OF e
                """, [.int(userId), communityId.map { .int($0) }, endingAfter.map { .timestamp($0) }, limit.map { .int(Int64($0)) }]
        ).map { try $0.decode(column: 0) }
        guard !ids.isEmpty else { return [] }
        let list = "{" + ids.map(String.init).joined(separator: ",") + "}"
        let dropped: [Int64] = try db.execute(
            cached: "DELETE FROM event_participants WHERE user_id = $1 AND event_id = ANY($2::bigint[]) RETURNING event_id",
            [.int(userId), .text(list)]
        ).map { try $0.decode(column: 0) }
        let droppedList = "{" + dropped.map(String.init).joined(separator: ",") + "}"
        try db.execute(
            cached: "UPDATE community_events SET participant_count = participant_count - 1 WHERE id = ANY($1::bigint[])", [.text(droppedList)])
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
            SELECT u.id, u.display_name, m.role, \(WireTimestamp.sql("m.joined_at")), \(part), lower(u.display_name COLLATE "und-x-icu")
            FROM community_members m JOIN users u ON u.id = m.user_id
            WHERE m.community_id = $1
              AND ($2::int IS NULL OR (\(part), \(key), u.id) > ($2::int, $3::text COLLATE "\(collation)", $4::bigint))
            ORDER BY \(part), \(key), u.id
            LIMIT $5
            """
        return try db.execute(
            cached: sql,
            [.int(communityId), cursor.map { .int(Int64($0.part)) }, cursor.map { .text($0.key) }, cursor.map { .int($0.id) }, .int(Int64(limit))]
        ).map { r in
            let member = CommunityMember(
                user: UserSummary(userId: try r.decode(column: 0), displayName: try r.decode(column: 1)), role: try r.decode(column: 2),
                joinedAt: try r.decode(column: 3))
            return (member, CommunityCursor(part: try r.decode(Int.self, column: 4), key: try r.decode(column: 5), id: member.user.userId))
        }
    }

    /// Appoints or removes a core member; nil when the user is not a member, else whether the role changed.
    public static func setCore(_ db: PostgresConnection, communityId: Int64, userId: Int64, core: Bool) throws -> Bool? {
        guard
            let old = try db.execute(
                cached: "SELECT role FROM community_members WHERE community_id = $1 AND user_id = $2 FOR UPDATE", [.int(communityId), .int(userId)]
            ).decodeFirst(String.self)
        else { return nil }
        let role = core ? "core" : "member"
        guard old != role else { return false }
        try db.execute(
            cached: "UPDATE community_members SET role = $3 WHERE community_id = $1 AND user_id = $2", [.int(communityId), .int(userId), .text(role)])
        return true
    }

    /// A page of notifications, newest first, before `beforeSeq`.
    public static func notifications(_ db: PostgresConnection, communityId: Int64, beforeSeq: Int64?, limit: Int) throws -> [CommunityNotification] {
        try db.execute(
            cached: """
                SELECT n.community_id, n.seq, n.kind, n.event_id, n.post_id, n.actor_id, u.display_name, n.title, \(WireTimestamp.sql("n.created_at"))
                FROM community_notifications n LEFT JOIN users u ON u.id = n.actor_id
                WHERE n.community_id = $1 AND n.seq < $2 ORDER BY n.seq DESC LIMIT $3
                """, [.int(communityId), .int(beforeSeq ?? Int64.max), .int(Int64(limit))]
        ).map { r in
            let actorId: Int64? = try r.decode(column: 5)
            let actorName: String? = try r.decode(column: 6)
            return CommunityNotification(
                communityId: try r.decode(column: 0), seq: try r.decode(column: 1), kind: try r.decode(column: 2), eventId: try r.decode(column: 3),
                postId: try r.decode(column: 4), actor: actorId.flatMap { id in actorName.map { UserSummary(userId: id, displayName: $0) } },
                title: try r.decode(column: 7), createdAt: try r.decode(column: 8))
        }
    }

    /// Moves the member's marker forward to `seq` (default, and at most, the newest); the marker and the
    /// community's newest seq after it, nil when the user is not a member.
    public static func read(_ db: PostgresConnection, communityId: Int64, userId: Int64, seq: Int64?) throws -> (readSeq: Int64, lastSeq: Int64)? {
        guard
            let r = try db.execute(
                cached: """
                    UPDATE community_members m SET read_seq = GREATEST(m.read_seq, LEAST(COALESCE($3, c.last_seq), c.last_seq))
                    FROM communities c WHERE c.id = m.community_id AND m.community_id = $1 AND m.user_id = $2
                    RETURNING m.read_seq, c.last_seq
                    """, [.int(communityId), .int(userId), seq.map { .int($0) }]
            ).first
        else { return nil }
        return (try r.decode(column: 0), try r.decode(column: 1))
    }

    /// The communities the user is a member of (export): id, name, role, joined_at, read_seq.
    public static func memberships(_ db: PostgresConnection, userId: Int64) throws -> [(communityId: Int64, name: String, role: String, joinedAt: String)] {
        try db.execute(
            cached: """
                SELECT c.id, c.name, m.role, \(WireTimestamp.sql("m.joined_at"))
                FROM community_members m JOIN communities c ON c.id = m.community_id WHERE m.user_id = $1 ORDER BY c.id
                """, [.int(userId)]
        ).map { (try $0.decode(column: 0), try $0.decode(column: 1), try $0.decode(column: 2), try $0.decode(column: 3)) }
    }

    /// Account deletion: removes up to `limit` of the user's memberships (member counts decremented); how many.
    public static func removeMemberships(_ db: PostgresConnection, userId: Int64, limit: Int) throws -> Int {
        let ids: [Int64] = try db.execute(
            cached: """
                DELETE FROM community_members WHERE (community_id, user_id) IN (
                    SELECT community_id, user_id FROM community_members WHERE user_id = $1 ORDER BY community_id LIMIT $2)
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

extension ServiceError {
    /// `communities.create`/`update` with the name of a live community.
    public static let communityNameTaken = ServiceError(.badRequest, "a community with this name exists")
}
