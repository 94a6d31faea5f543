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

/// The SQL of community events, their participants and the calendar of joined events (tables `community_events`,
/// `event_participants`; docs/protocol.md "Events and calendar"). Every function takes the connection it runs
/// on; none opens a transaction of its own. `now` is passed in (the status of an event, "ended" for joins and
/// the list's split between upcoming and past all use it), so that one answer uses one instant.
public enum EventRepository {
    /// One `community_events` row with the viewer's participation.
    public struct Row: PostgresRowDecodable, Sendable, Equatable {
        public var id: Int64
        public var communityId: Int64
        public var title: String
        public var description: String
        public var place: String
        public var startsAt: Date
        public var endsAt: Date
        public var timeZone: String
        public var capacity: Int64?
        public var participantCount: Int64
        public var joined: Bool
        public var cancelled: Bool
        public var version: Int64
        public var updatedAt: Date
        /// `starts_at` in microseconds since 1970 (the exact key of the list's cursor).
        public var startsAtMicroseconds: Int64

        public init(row: PostgresRow) throws(PostgresDecodingError) {
            id = try row.decode(column: 0)
            communityId = try row.decode(column: 1)
            title = try row.decode(column: 2)
            description = try row.decode(column: 3)
            place = try row.decode(column: 4)
            startsAt = try row.decode(column: 5)
            endsAt = try row.decode(column: 6)
            timeZone = try row.decode(column: 7)
            capacity = try row.decode(column: 8)
            participantCount = try row.decode(column: 9)
            joined = try row.decode(column: 10)
            cancelled = try row.decode(column: 11)
            version = try row.decode(column: 12)
            updatedAt = try row.decode(column: 13)
            startsAtMicroseconds = try row.decode(column: 14)
        }

        public func status(at now: Date) -> EventStatus {
            EventStatus(startsAt: startsAt, endsAt: endsAt, cancelled: cancelled, now: now)
        }

        /// The wire object at `now`.
        public func event(at now: Date) -> EventInfo {
            EventInfo(
                eventId: id, communityId: communityId, title: title, description: description, place: place,
                startsAt: WireTimestamp.string(from: startsAt), endsAt: WireTimestamp.string(from: endsAt),
                timeZone: timeZone,
                capacity: capacity, participantCount: participantCount, joined: joined,
                status: status(at: now).rawValue, version: version,
                updatedAt: WireTimestamp.string(from: updatedAt))
        }
    }

    /// The columns of `Row` for the event aliased `e`, the viewer being `$2`.
    static let columns = """
        e.id, e.community_id, e.title, e.description, e.place, e.starts_at, e.ends_at, e.time_zone, e.capacity::bigint,
        e.participant_count::bigint,
        EXISTS (SELECT 1 FROM event_participants p WHERE p.event_id = e.id AND p.user_id = $2),
        e.cancelled_at IS NOT NULL, e.version::bigint, e.updated_at,
        ((extract(epoch FROM e.starts_at) * 1000000)::numeric)::bigint
        """

    /// The event `id` as `viewer` sees it; `lock` takes its row lock (`FOR UPDATE`) until the transaction ends.
    public static func event(_ db: PostgresConnection, id: Int64, viewer: Int64, lock: Bool = false) throws -> Row? {
        try db.execute(
            cached: "SELECT \(columns) FROM community_events e WHERE e.id = $1\(lock ? " FOR UPDATE" : "")",
            [.int(id), .int(viewer)]
        ).decode(Row.self).first
    }

    /// What a user may do in a community.
    public struct Access: Sendable, Equatable {
        public var member: Bool
        public var administrator: Bool
        public var archived: Bool
    }

    /// The user's standing in the community; `not_found` when there is no such community, or when it is archived
    /// and the user is neither a member nor an administrator.
    public static func access(_ db: PostgresConnection, communityId: Int64, userId: Int64) throws -> Access {
        let rows = try db.execute(
            cached: """
                SELECT c.archived_at IS NOT NULL,
                       EXISTS (SELECT 1 FROM community_members m WHERE m.community_id = c.id AND m.user_id = $2)
                FROM communities c WHERE c.id = $1
                """, [.int(communityId), .int(userId)])
        guard let row = rows.first else { throw CommunityError.noSuchCommunity }
        // The one role check of the server (moderation's).
        let access = Access(
            member: try row.decode(column: 1), administrator: try AdministratorRole.holds(db, userId),
            archived: try row.decode(column: 0))
        if access.archived && !access.member && !access.administrator { throw CommunityError.noSuchCommunity }
        return access
    }

    /// Members and administrators may read a community's events; others get `eventsMembersOnly`.
    public static func requireReader(_ access: Access) throws(CommunityError) {
        guard access.member || access.administrator else { throw .eventsMembersOnly }
    }

    /// Only administrators publish, change and cancel events (`administratorsOnly`), and not in an archived
    /// community (`archivedEvents`).
    public static func requireOrganiser(_ access: Access) throws(CommunityError) {
        guard access.administrator else { throw .administratorsOnly }
        guard !access.archived else { throw .archivedEvents }
    }

    /// The event `id` and the viewer's access to its community (`noSuchEvent` for an event of a community the
    /// viewer may not see).
    public static func visibleEvent(_ db: PostgresConnection, id: Int64, viewer: Int64, lock: Bool = false) throws -> (
        Row, Access
    ) {
        guard let row = try event(db, id: id, viewer: viewer, lock: lock) else { throw CommunityError.noSuchEvent }
        let access: Access
        do {
            access = try self.access(db, communityId: row.communityId, userId: viewer)
        } catch CommunityError.noSuchCommunity {
            throw CommunityError.noSuchEvent
        }
        return (row, access)
    }

    /// The fields of a new event or of a change (validated by the caller).
    public struct Fields: Sendable, Equatable {
        public var title: String
        public var description: String
        public var place: String
        public var startsAt: Date
        public var endsAt: Date
        public var timeZone: String
        public var capacity: Int64?
        public init(
            title: String, description: String, place: String, startsAt: Date, endsAt: Date, timeZone: String,
            capacity: Int64?
        ) {
            self.title = title
            self.description = description
            self.place = place
            self.startsAt = startsAt
            self.endsAt = endsAt
            self.timeZone = timeZone
            self.capacity = capacity
        }
    }

    /// Inserts an event; returns its row (as its creator sees it).
    public static func create(_ db: PostgresConnection, communityId: Int64, fields f: Fields, createdBy: Int64) throws
        -> Row
    {
        let id =
            try db.execute(
                cached: """
                    INSERT INTO community_events
                        (community_id, title, description, place, starts_at, ends_at, time_zone, capacity, created_by)
                    VALUES ($1, $2, $3, $4, $5::timestamptz, $6::timestamptz, $7, $8::int, $9) RETURNING id
                    """,
                [
                    .int(communityId), .text(f.title), .text(f.description), .text(f.place),
                    .text(WireTimestamp.string(from: f.startsAt)),
                    .text(WireTimestamp.string(from: f.endsAt)), .text(f.timeZone), f.capacity.map { .int($0) },
                    .int(createdBy),
                ]
            ).decodeFirst(Int64.self) ?? 0
        guard let row = try event(db, id: id, viewer: createdBy) else { throw CommunityError.noSuchEvent }
        return row
    }

    /// Replaces the event's fields, version + 1. The caller holds the row lock.
    public static func update(_ db: PostgresConnection, id: Int64, fields f: Fields, viewer: Int64) throws -> Row {
        _ = try db.execute(
            cached: """
                UPDATE community_events SET title = $2, description = $3, place = $4, starts_at = $5::timestamptz,
                    ends_at = $6::timestamptz, time_zone = $7, capacity = $8::int, version = version + 1,
                    updated_at = now()
                WHERE id = $1
                """,
            [
                .int(id), .text(f.title), .text(f.description), .text(f.place),
                .text(WireTimestamp.string(from: f.startsAt)),
                .text(WireTimestamp.string(from: f.endsAt)), .text(f.timeZone), f.capacity.map { .int($0) },
            ])
        guard let row = try event(db, id: id, viewer: viewer) else { throw CommunityError.noSuchEvent }
        return row
    }

    /// Marks the event cancelled, version + 1 (participants stay). The caller holds the row lock.
    public static func cancel(_ db: PostgresConnection, id: Int64, viewer: Int64) throws -> Row {
        _ = try db.execute(
            cached: """
                UPDATE community_events SET cancelled_at = now(), version = version + 1, updated_at = now()
                WHERE id = $1
                """,
            [.int(id)])
        guard let row = try event(db, id: id, viewer: viewer) else { throw CommunityError.noSuchEvent }
        return row
    }

    /// Adds `userId` to the event and counts it. The caller holds the row lock and checked the rules.
    public static func addParticipant(_ db: PostgresConnection, eventId: Int64, userId: Int64) throws -> Row {
        _ = try db.execute(
            cached: "INSERT INTO event_participants (event_id, user_id) VALUES ($1, $2)", [.int(eventId), .int(userId)])
        _ = try db.execute(
            cached: "UPDATE community_events SET participant_count = participant_count + 1 WHERE id = $1",
            [.int(eventId)])
        guard let row = try event(db, id: eventId, viewer: userId) else { throw CommunityError.noSuchEvent }
        return row
    }

    /// Removes `userId` from the event and counts it. The caller holds the row lock.
    public static func removeParticipant(_ db: PostgresConnection, eventId: Int64, userId: Int64) throws -> Row {
        let removed = try db.execute(
            cached: "DELETE FROM event_participants WHERE event_id = $1 AND user_id = $2 RETURNING 1",
            [.int(eventId), .int(userId)])
        if !removed.isEmpty {
            _ = try db.execute(
                cached: "UPDATE community_events SET participant_count = participant_count - 1 WHERE id = $1",
                [.int(eventId)])
        }
        guard let row = try event(db, id: eventId, viewer: userId) else { throw CommunityError.noSuchEvent }
        return row
    }

    /// The position of an event in a community's list: its start in microseconds and its id.
    public struct ListCursor: Sendable, Equatable {
        public var startsAtMicroseconds: Int64
        public var id: Int64
        public init(startsAtMicroseconds: Int64, id: Int64) {
            self.startsAtMicroseconds = startsAtMicroseconds
            self.id = id
        }

        /// `MICROSECONDS.ID`.
        public init?(_ text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 2, let us = Int64(parts[0]), let id = Int64(parts[1]), id > 0,
                abs(us) < 400_000_000_000_000_000
            else { return nil }
            self.init(startsAtMicroseconds: us, id: id)
        }

        public var text: String { "\(startsAtMicroseconds).\(id)" }
    }

    /// A page of a community's events: `upcoming` (not ended at `now`, earliest first) or past (ended, latest first),
    /// after `cursor`; `limit + 1` rows are asked so the caller knows whether there is a next page.
    public static func list(
        _ db: PostgresConnection, communityId: Int64, viewer: Int64, upcoming: Bool, after cursor: ListCursor?,
        limit: Int, now: Date
    ) throws -> [Row] {
        let position = "'epoch'::timestamptz + $4::bigint * interval '1 microsecond'"
        let sql: String
        if upcoming {
            sql = """
                SELECT \(columns) FROM community_events e
                WHERE e.community_id = $1 AND e.ends_at > $3::timestamptz
                  AND ($5::bigint IS NULL OR (e.starts_at, e.id) > (\(position), $5::bigint))
                ORDER BY e.starts_at, e.id LIMIT $6
                """
        } else {
            sql = """
                SELECT \(columns) FROM community_events e
                WHERE e.community_id = $1 AND e.ends_at <= $3::timestamptz
                  AND ($5::bigint IS NULL OR (e.starts_at, e.id) < (\(position), $5::bigint))
                ORDER BY e.starts_at DESC, e.id DESC LIMIT $6
                """
        }
        return try db.execute(
            cached: sql,
            [
                .int(communityId), .int(viewer), .text(WireTimestamp.string(from: now)),
                .int(cursor?.startsAtMicroseconds ?? 0),
                cursor.map { .int($0.id) }, .int(Int64(limit + 1)),
            ]
        ).decode(Row.self)
    }

    /// A page of the event's participants by user id after `afterUserId`; `limit + 1` rows.
    public static func participants(_ db: PostgresConnection, eventId: Int64, afterUserId: Int64, limit: Int) throws
        -> [UserSummary]
    {
        try db.execute(
            cached: """
                SELECT u.id, u.display_name FROM event_participants p JOIN users u ON u.id = p.user_id
                WHERE p.event_id = $1 AND p.user_id > $2 ORDER BY p.user_id LIMIT $3
                """, [.int(eventId), .int(afterUserId), .int(Int64(limit + 1))]
        ).decode(SummaryRow.self).map(\.summary)
    }

    struct SummaryRow: PostgresRowDecodable {
        var summary: UserSummary
        init(row: PostgresRow) throws(PostgresDecodingError) {
            summary = UserSummary(userId: try row.decode(column: 0), displayName: try row.decode(column: 1))
        }
    }

    /// The events `userId` joined that meet [from, to): cancelled ones included, by start then id (the
    /// `event_participants_by_user` index, then each event by its key), at most `limit` (beyond, the latest are
    /// left out).
    public static func joined(_ db: PostgresConnection, userId: Int64, from: Date, to: Date, limit: Int) throws -> [Row]
    {
        try db.execute(
            cached: """
                SELECT \(columns) FROM event_participants p JOIN community_events e ON e.id = p.event_id
                WHERE p.user_id = $2 AND e.starts_at < $4::timestamptz AND e.ends_at > $3::timestamptz
                ORDER BY e.starts_at, e.id LIMIT $1
                """,
            [
                .int(Int64(limit)), .int(userId), .text(WireTimestamp.string(from: from)),
                .text(WireTimestamp.string(from: to)),
            ]
        ).decode(Row.self)
    }

    /// The user's stored time zone and locale (nil when unset).
    public static func zoneAndLocale(_ db: PostgresConnection, userId: Int64) throws -> (
        timeZone: String?, locale: String?
    ) {
        guard
            let row = try db.execute(cached: "SELECT time_zone, locale FROM users WHERE id = $1", [.int(userId)]).first
        else { return (nil, nil) }
        return (try row.decode(String?.self, column: 0), try row.decode(String?.self, column: 1))
    }
}
