//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// Events' use cases (docs/protocol.md, "Events and calendar"): community events, their participants and the
/// calendar of a user's joined events. Each is one read or one transaction on the database seam, the rules checked
/// first, the events to tell returned with the result.
///
/// Administrators publish, change and cancel events (not in an archived community); members and administrators see
/// them; members join and drop them. Joins and drops take the event's row lock (`SELECT ... FOR UPDATE`), so the
/// capacity check and the count are exact under concurrent joins, on one node or many (the lock is PostgreSQL's).
/// Publishing, changing and cancelling write a community notification in the same transaction
/// (`CommunityNotifications.publish`), told to every member after the commit. The wall clock `now` decides an
/// event's status (ended when now ≥ ends_at, `EventStatus`); a join reads it under the row lock, so that the
/// decision and the answer use one instant.
final class EventService: Sendable {
    let db: any Database
    let limits: CommunityConfiguration
    /// The wall clock (a manual one in tests).
    let now: @Sendable () -> Date

    init(db: any Database, limits: CommunityConfiguration, now: @escaping @Sendable () -> Date = { Date() }) {
        self.db = db
        self.limits = limits
        self.now = now
    }

    /// `events.create` (administrators): a new event; the community's members hear `community.notification`
    /// (`event.published`).
    func create(
        _ caller: Caller, _ p: Ops.EventsCreate.Parameters
    ) async throws(CommunityError) -> (EventResult, [DomainEvent]) {
        let fields = try checkedFields(
            title: p.title, description: p.description ?? "", place: p.place ?? "",
            startsAt: Self.instant(p.startsAt, "starts_at"), endsAt: Self.instant(p.endsAt, "ends_at"),
            timeZone: p.timeZone, capacity: p.capacity)
        let me = caller.userId
        let (row, notice) = try await db.write(as: CommunityError.self) { db in
            try EventRepository.requireOrganiser(try EventRepository.access(db, communityId: p.communityId, userId: me))
            let row = try EventRepository.create(db, communityId: p.communityId, fields: fields, createdBy: me)
            return (row, try Self.notice(db, row, kind: "event.published", actor: me))
        }
        return (EventResult(event: row.event(at: now())), [notice])
    }

    /// `events.update` (administrators): the given fields of an event that is neither cancelled nor ended, version
    /// + 1; the members hear `community.notification` (`event.changed`).
    func update(
        _ caller: Caller, _ p: Ops.EventsUpdate.Parameters
    ) async throws(CommunityError) -> (EventResult, [DomainEvent]) {
        let startsAt = try p.startsAt.map { text throws(CommunityError) in try Self.instant(text, "starts_at") }
        let endsAt = try p.endsAt.map { text throws(CommunityError) in try Self.instant(text, "ends_at") }
        let me = caller.userId
        let (row, notice) = try await db.write(as: CommunityError.self) { [self] db in
            let (current, access) = try EventRepository.visibleEvent(db, id: p.eventId, viewer: me, lock: true)
            try EventRepository.requireOrganiser(access)
            try Self.requireChangeable(current, now: now())
            let fields = try checkedFields(
                title: p.title ?? current.title, description: p.description ?? current.description,
                place: p.place ?? current.place, startsAt: startsAt ?? current.startsAt,
                endsAt: endsAt ?? current.endsAt, timeZone: p.timeZone ?? current.timeZone,
                capacity: p.capacityGiven ? p.capacity : current.capacity)
            if let capacity = fields.capacity, capacity < current.participantCount {
                throw CommunityError.capacityBelowParticipants(current.participantCount)
            }
            let row = try EventRepository.update(db, id: p.eventId, fields: fields, viewer: me)
            return (row, try Self.notice(db, row, kind: "event.changed", actor: me))
        }
        return (EventResult(event: row.event(at: now())), [notice])
    }

    /// `events.cancel` (administrators): an event that is neither cancelled nor ended is cancelled (its participants
    /// stay); the members hear `community.notification` (`event.cancelled`).
    func cancel(_ caller: Caller, eventId: Int64) async throws(CommunityError) -> (EventResult, [DomainEvent]) {
        let me = caller.userId
        let (row, notice) = try await db.write(as: CommunityError.self) { [now] db in
            let (current, access) = try EventRepository.visibleEvent(db, id: eventId, viewer: me, lock: true)
            try EventRepository.requireOrganiser(access)
            try Self.requireChangeable(current, now: now())
            let row = try EventRepository.cancel(db, id: eventId, viewer: me)
            return (row, try Self.notice(db, row, kind: "event.cancelled", actor: me))
        }
        return (EventResult(event: row.event(at: now())), [notice])
    }

    /// `events.list` (members and administrators): a community's upcoming events (not ended, earliest first) or past
    /// ones (latest first), in pages.
    func list(
        communityId: Int64, viewer: Int64, direction: String?, cursor: String?, limit: Int?
    ) async throws(CommunityError) -> Ops.EventsList.Result {
        let limit = try limits.page(limit)
        let direction = direction ?? "upcoming"
        guard direction == "upcoming" || direction == "past" else { throw .badDirection }
        var after: EventRepository.ListCursor?
        if let cursor {
            guard let parsed = EventRepository.ListCursor(cursor) else { throw .badEventCursor }
            after = parsed
        }
        let now = self.now()
        let start = after
        let rows = try await db.read(as: CommunityError.self) { db in
            try EventRepository.requireReader(try EventRepository.access(db, communityId: communityId, userId: viewer))
            return try EventRepository.list(
                db, communityId: communityId, viewer: viewer, upcoming: direction == "upcoming", after: start,
                limit: limit, now: now)
        }
        let page = rows.prefix(limit)
        let next =
            rows.count > limit
            ? page.last.map {
                EventRepository.ListCursor(startsAtMicroseconds: $0.startsAtMicroseconds, id: $0.id).text
            }
            : nil
        return .init(events: page.map { $0.event(at: now) }, nextCursor: next)
    }

    /// `events.get` (members and administrators): one event.
    func event(_ eventId: Int64, viewer: Int64) async throws(CommunityError) -> EventResult {
        let row = try await db.read(as: CommunityError.self) { db in
            let (row, access) = try EventRepository.visibleEvent(db, id: eventId, viewer: viewer)
            try EventRepository.requireReader(access)
            return row
        }
        return EventResult(event: row.event(at: now()))
    }

    /// `events.join` (members, in a live community): a place in an event that is neither cancelled nor ended nor
    /// full; the caller's devices hear `event.joined`.
    func join(_ caller: Caller, eventId: Int64) async throws(CommunityError) -> (EventResult, [DomainEvent]) {
        let me = caller.userId
        let (row, now) = try await db.write(as: CommunityError.self) { [now] db in
            let (current, access) = try EventRepository.visibleEvent(db, id: eventId, viewer: me, lock: true)
            guard access.member else { throw CommunityError.joinMembersOnly }
            guard !access.archived else { throw CommunityError.archivedEvents }
            // Read under the lock: the decision and the answer use the same instant.
            let now = now()
            switch current.status(at: now) {
            case .cancelled: throw CommunityError.eventCancelled
            case .ended: throw CommunityError.eventEnded
            case .upcoming, .ongoing: break
            }
            if current.joined { throw CommunityError.alreadyJoined }
            if let capacity = current.capacity, current.participantCount >= capacity { throw CommunityError.eventFull }
            return (try EventRepository.addParticipant(db, eventId: eventId, userId: me), now)
        }
        let result = EventResult(event: row.event(at: now))
        return (result, [DomainEvent(to: [me], EventJoinedEvent(event: result.event))])
    }

    /// `events.drop`: gives up the caller's place in an event that has not ended (also after leaving its community);
    /// the caller's devices hear `event.dropped`.
    func drop(_ caller: Caller, eventId: Int64) async throws(CommunityError) -> (EventResult, [DomainEvent]) {
        let me = caller.userId
        let (row, now) = try await db.write(as: CommunityError.self) { [now] db in
            let (current, access) = try EventRepository.visibleEvent(db, id: eventId, viewer: me, lock: true)
            // A former member may still drop what it joined; anyone else learns nothing.
            guard access.member || access.administrator || current.joined else { throw CommunityError.noSuchEvent }
            let now = now()
            if now >= current.endsAt { throw CommunityError.eventEnded }
            guard current.joined else { throw CommunityError.notJoined }
            return (try EventRepository.removeParticipant(db, eventId: eventId, userId: me), now)
        }
        return (EventResult(event: row.event(at: now)), [DomainEvent(to: [me], EventDroppedEvent(eventId: eventId))])
    }

    /// `events.participants` (members and administrators): by user id, in pages.
    func participants(
        eventId: Int64, viewer: Int64, cursor: String?, limit: Int?
    ) async throws(CommunityError) -> Ops.EventsParticipants.Result {
        let limit = try limits.page(limit, people: true)
        var after: Int64 = 0
        if let cursor {
            guard let id = Int64(cursor), id > 0 else { throw .badEventCursor }
            after = id
        }
        let afterUserId = after
        let users = try await db.read(as: CommunityError.self) { db in
            let (_, access) = try EventRepository.visibleEvent(db, id: eventId, viewer: viewer)
            try EventRepository.requireReader(access)
            return try EventRepository.participants(db, eventId: eventId, afterUserId: afterUserId, limit: limit)
        }
        let page = Array(users.prefix(limit))
        return .init(participants: page, nextCursor: users.count > limit ? page.last.map { String($0.userId) } : nil)
    }

    /// `calendar.get`: the viewer's joined events meeting the day, week, month or year around `date` (default:
    /// today) in the given or stored time zone (a zone this system no longer knows reads as UTC), weeks starting on
    /// the locale's first weekday; at most `maxCalendarEvents` (beyond, the latest are left out).
    func calendar(viewer: Int64, _ p: Ops.CalendarGet.Parameters) async throws(CommunityError) -> CalendarResult {
        guard let kind = CalendarRange.Kind(rawValue: p.range) else { throw .badCalendarRange }
        var anchor: LocalDate?
        if let text = p.date {
            guard let date = LocalDate(text) else { throw .badDate }
            anchor = date
        }
        if let zone = p.timeZone { try Self.checkTimeZone(zone) }
        if let locale = p.locale { try Self.checkLocale(locale) }
        let anchorDate = anchor
        let maxEvents = limits.maxCalendarEvents
        return try await db.read(as: CommunityError.self) { [now] db in
            var zoneName = p.timeZone
            var locale = p.locale
            if zoneName == nil || locale == nil {
                let stored = try EventRepository.zoneAndLocale(db, userId: viewer)
                zoneName = zoneName ?? stored.timeZone
                locale = locale ?? stored.locale
            }
            // A stored zone that this system no longer knows reads as UTC.
            var name = zoneName ?? "UTC"
            let zone: TimeZone
            if let known = TimeZone(identifier: name) {
                zone = known
            } else {
                name = "UTC"
                zone = TimeZone(identifier: "UTC") ?? .gmt
            }
            let now = now()
            guard
                let range = CalendarRange(
                    kind: kind, anchor: anchorDate, timeZone: zone, locale: locale ?? "en-US", now: now)
            else { throw CommunityError.dateOutOfRange }
            let rows = try EventRepository.joined(
                db, userId: viewer, from: range.startsAt, to: range.endsAt, limit: maxEvents)
            let days = range.days(rows.map { CalendarRange.Span(id: $0.id, startsAt: $0.startsAt, endsAt: $0.endsAt) })
            return CalendarResult(
                range: kind.rawValue, timeZone: name, firstWeekday: range.firstWeekday,
                today: range.today.description, from: range.from.description, to: range.to.description,
                startsAt: WireTimestamp.string(from: range.startsAt), endsAt: WireTimestamp.string(from: range.endsAt),
                previous: range.previous?.description, next: range.next?.description,
                days: days.map { CalendarDay(date: $0.date.description, eventIds: $0.ids) },
                events: rows.map { $0.event(at: now) })
        }
    }

    // MARK: - Rules

    /// A wire timestamp, or `badTimestamp` naming the field.
    static func instant(_ text: String, _ field: String) throws(CommunityError) -> Date {
        guard let date = WireInstant.parse(text) else { throw .badTimestamp(field: field) }
        return date
    }

    /// The checked fields of an event: the texts, an end after the start within `maxEventDays`, a known zone, a
    /// capacity within `maxEventCapacity`.
    func checkedFields(
        title: String, description: String, place: String, startsAt: Date, endsAt: Date, timeZone: String,
        capacity: Int64?
    ) throws(CommunityError) -> EventRepository.Fields {
        try limits.check(title, limits.titleRule)
        if !description.isEmpty { try limits.check(description, limits.eventDescriptionRule) }
        if !place.isEmpty { try limits.check(place, limits.placeRule) }
        guard endsAt > startsAt else { throw .endsBeforeStart }
        guard endsAt.timeIntervalSince(startsAt) <= TimeInterval(limits.maxEventDays) * 86_400 else {
            throw .eventTooLong(maxDays: limits.maxEventDays)
        }
        try Self.checkTimeZone(timeZone)
        if let capacity, !(1...limits.maxEventCapacity).contains(capacity) {
            throw .badCapacity(max: limits.maxEventCapacity)
        }
        return EventRepository.Fields(
            title: title, description: description, place: place, startsAt: startsAt, endsAt: endsAt,
            timeZone: timeZone, capacity: capacity)
    }

    /// A cancelled or ended event can no longer be changed or cancelled.
    static func requireChangeable(_ row: EventRepository.Row, now: Date) throws(CommunityError) {
        switch row.status(at: now) {
        case .cancelled: throw .eventCancelled
        case .ended: throw .eventOver
        case .upcoming, .ongoing: break
        }
    }

    /// A time zone this system knows, of at most 64 bytes.
    static func checkTimeZone(_ name: String) throws(CommunityError) {
        guard name.utf8.count <= 64, TimeZone(identifier: name) != nil else { throw .unknownTimeZone }
    }

    /// A BCP 47 (or ICU) locale identifier: letters, digits, `-` and `_`, starting with a language.
    static func checkLocale(_ locale: String) throws(CommunityError) {
        let bytes = Array(locale.utf8)
        let letter = { (b: UInt8) in (65...90).contains(b) || (97...122).contains(b) }
        guard (2...35).contains(bytes.count), letter(bytes[0]), letter(bytes[1]),
            bytes.allSatisfy({
                letter($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
            })
        else { throw .badLocale }
    }

    /// Writes the community notification about `row` (inside the caller's transaction) and returns it as the event
    /// its community's members hear after the commit.
    static func notice(_ db: PostgresConnection, _ row: EventRepository.Row, kind: String, actor: Int64) throws
        -> DomainEvent
    {
        let notification = try CommunityNotifications.publish(
            db, communityId: row.communityId, kind: kind, eventId: row.id, postId: nil, actorId: actor, title: row.title
        )
        return CommunityService.notificationEvent(
            notification, to: try CommunityRepository.memberIds(db, communityId: row.communityId))
    }
}
