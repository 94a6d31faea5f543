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

/// Community events, their participants and the calendar of a user's joined events (docs/protocol.md, "Events
/// and calendar").
///
/// Every op is one database step off the loop (`RequestContext.run`): authorization, the rules and the change in
/// one transaction. Joins and drops take the event's row lock (`SELECT ... FOR UPDATE`), so the capacity check
/// and the count are exact under concurrent joins, on one node or many (the lock is PostgreSQL's). Publishing,
/// changing and cancelling write a community notification in the same transaction
/// (`CommunityNotifications.publish`); after the commit the `community.notification` event, encoded once, goes to
/// every member's connected devices through `Deliveries` (every node of a cluster). `now` is read once per
/// request: an event is ended when now ≥ ends_at (`EventStatus`).
struct EventsFeature: Feature {
    init(context: ProtocolServices) {}


    func register(in registry: inout FeatureRegistry) {
        registry.add(EventsAccountData.deletionSteps)
        registry.operations.register(Ops.EventsCreate.self) { s, p async throws(ServiceError) -> EventResult in
            let fields = try Self.fields(
                title: p.title, description: p.description ?? "", place: p.place ?? "", startsAt: Self.instant(p.startsAt, "starts_at"),
                endsAt: Self.instant(p.endsAt, "ends_at"), timeZone: p.timeZone, capacity: p.capacity, limits: s.services.communities)
            let me = s.userId
            let (row, notice) = try await Self.database(s, transaction: true) { db in
                try EventRepository.requireOrganiser(try EventRepository.access(db, communityId: p.communityId, userId: me))
                let row = try EventRepository.create(db, communityId: p.communityId, fields: fields, createdBy: me)
                return (row, try Self.notice(db, row, kind: "event.published", actor: me))
            }
            Self.send(s, notice)
            return EventResult(event: row.event(at: Date()))
        }
        registry.operations.register(Ops.EventsUpdate.self) { s, p async throws(ServiceError) -> EventResult in
            let me = s.userId
            let startsAt = try p.startsAt.map { text throws(ServiceError) in try Self.instant(text, "starts_at") }
            let endsAt = try p.endsAt.map { text throws(ServiceError) in try Self.instant(text, "ends_at") }
            let limits = s.services.communities
            let (row, notice) = try await Self.database(s, transaction: true) { db in
                let (current, access) = try EventRepository.visibleEvent(db, id: p.eventId, viewer: me, lock: true)
                try EventRepository.requireOrganiser(access)
                try Self.requireChangeable(current, now: Date())
                let fields = try Self.fields(
                    title: p.title ?? current.title, description: p.description ?? current.description, place: p.place ?? current.place,
                    startsAt: startsAt ?? current.startsAt, endsAt: endsAt ?? current.endsAt, timeZone: p.timeZone ?? current.timeZone,
                    capacity: p.capacityGiven ? p.capacity : current.capacity, limits: limits)
                if let capacity = fields.capacity, capacity < current.participantCount {
                    throw ServiceError(.badRequest, "capacity is below the \(current.participantCount) participants")
                }
                let row = try EventRepository.update(db, id: p.eventId, fields: fields, viewer: me)
                return (row, try Self.notice(db, row, kind: "event.changed", actor: me))
            }
            Self.send(s, notice)
            return EventResult(event: row.event(at: Date()))
        }
        registry.operations.register(Ops.EventsCancel.self) { s, p async throws(ServiceError) -> EventResult in
            let me = s.userId
            let (row, notice) = try await Self.database(s, transaction: true) { db in
                let (current, access) = try EventRepository.visibleEvent(db, id: p.eventId, viewer: me, lock: true)
                try EventRepository.requireOrganiser(access)
                try Self.requireChangeable(current, now: Date())
                let row = try EventRepository.cancel(db, id: p.eventId, viewer: me)
                return (row, try Self.notice(db, row, kind: "event.cancelled", actor: me))
            }
            Self.send(s, notice)
            return EventResult(event: row.event(at: Date()))
        }
        registry.operations.register(Ops.EventsList.self) { s, p async throws(ServiceError) -> Ops.EventsList.Result in
            let limit = try s.services.communities.page(p.limit)
            let direction = p.direction ?? "upcoming"
            guard direction == "upcoming" || direction == "past" else { throw ServiceError(.badRequest, "direction must be upcoming or past") }
            var cursor: EventRepository.ListCursor?
            if let text = p.cursor {
                guard let parsed = EventRepository.ListCursor(text) else { throw ServiceError(.badRequest, "invalid cursor") }
                cursor = parsed
            }
            let me = s.userId
            let now = Date()
            let after = cursor
            let rows = try await Self.database(s) { db in
                try EventRepository.requireReader(try EventRepository.access(db, communityId: p.communityId, userId: me))
                return try EventRepository.list(
                    db, communityId: p.communityId, viewer: me, upcoming: direction == "upcoming", after: after, limit: limit, now: now)
            }
            let page = rows.prefix(limit)
            let next = rows.count > limit ? page.last.map { EventRepository.ListCursor(startsAtMicroseconds: $0.startsAtMicroseconds, id: $0.id).text } : nil
            return .init(events: page.map { $0.event(at: now) }, nextCursor: next)
        }
        registry.operations.register(Ops.EventsGet.self) { s, p async throws(ServiceError) -> EventResult in
            let me = s.userId
            let row = try await Self.database(s) { db in
                let (row, access) = try EventRepository.visibleEvent(db, id: p.eventId, viewer: me)
                try EventRepository.requireReader(access)
                return row
            }
            return EventResult(event: row.event(at: Date()))
        }
        registry.operations.register(Ops.EventsJoin.self) { s, p async throws(ServiceError) -> EventResult in
            let me = s.userId
            let (row, now) = try await Self.database(s, transaction: true) { db in
                let (current, access) = try EventRepository.visibleEvent(db, id: p.eventId, viewer: me, lock: true)
                guard access.member else { throw ServiceError(.forbidden, "only the community's members join its events") }
                guard !access.archived else { throw ServiceError(.invalidState, "the community is archived") }
                // Read under the lock: the decision and the answer use the same instant.
                let now = Date()
                switch current.status(at: now) {
                case .cancelled: throw ServiceError(.invalidState, "the event was cancelled")
                case .ended: throw EventRepository.ended
                case .upcoming, .ongoing: break
                }
                if current.joined { throw ServiceError(.alreadyJoined, "you already joined this event") }
                if let capacity = current.capacity, current.participantCount >= capacity {
                    throw ServiceError(.eventFull, "the event is full")
                }
                return (try EventRepository.addParticipant(db, eventId: p.eventId, userId: me), now)
            }
            let result = EventResult(event: row.event(at: now))
            s.services.deliveries.send(ProtocolCodec.encodeEvent(EventJoinedEvent(event: result.event)), toUsers: [me])
            return result
        }
        registry.operations.register(Ops.EventsDrop.self) { s, p async throws(ServiceError) -> EventResult in
            let me = s.userId
            let (row, now) = try await Self.database(s, transaction: true) { db in
                let (current, access) = try EventRepository.visibleEvent(db, id: p.eventId, viewer: me, lock: true)
                // A former member may still drop what it joined; anyone else learns nothing.
                guard access.member || access.administrator || current.joined else { throw EventRepository.noSuchEvent }
                let now = Date()
                if now >= current.endsAt { throw EventRepository.ended }
                guard current.joined else { throw ServiceError(.notJoined, "you have not joined this event") }
                return (try EventRepository.removeParticipant(db, eventId: p.eventId, userId: me), now)
            }
            s.services.deliveries.send(ProtocolCodec.encodeEvent(EventDroppedEvent(eventId: p.eventId)), toUsers: [me])
            return EventResult(event: row.event(at: now))
        }
        registry.operations.register(Ops.EventsParticipants.self) { s, p async throws(ServiceError) -> Ops.EventsParticipants.Result in
            let limit = try s.services.communities.page(p.limit, people: true)
            var after: Int64 = 0
            if let text = p.cursor {
                guard let id = Int64(text), id > 0 else { throw ServiceError(.badRequest, "invalid cursor") }
                after = id
            }
            let me = s.userId
            let afterUserId = after
            let users = try await Self.database(s) { db in
                let (_, access) = try EventRepository.visibleEvent(db, id: p.eventId, viewer: me)
                try EventRepository.requireReader(access)
                return try EventRepository.participants(db, eventId: p.eventId, afterUserId: afterUserId, limit: limit)
            }
            let page = Array(users.prefix(limit))
            return .init(participants: page, nextCursor: users.count > limit ? page.last.map { String($0.userId) } : nil)
        }
        registry.operations.register(Ops.CalendarGet.self) { s, p async throws(ServiceError) -> CalendarResult in
            guard let kind = CalendarRange.Kind(rawValue: p.range) else { throw ServiceError(.badRequest, "range must be day, week, month or year") }
            var anchor: LocalDate?
            if let text = p.date {
                guard let date = LocalDate(text) else { throw ServiceError(.badRequest, "date must be a valid YYYY-MM-DD") }
                anchor = date
            }
            if let zone = p.timeZone { try Self.checkTimeZone(zone) }
            if let locale = p.locale { try Self.checkLocale(locale) }
            let me = s.userId
            let anchorDate = anchor
            return try await Self.database(s) { db in
                var zoneName = p.timeZone
                var locale = p.locale
                if zoneName == nil || locale == nil {
                    let stored = try EventRepository.zoneAndLocale(db, userId: me)
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
                let now = Date()
                guard let range = CalendarRange(kind: kind, anchor: anchorDate, timeZone: zone, locale: locale ?? "en-US", now: now) else {
                    throw ServiceError(.badRequest, "date is out of range")
                }
                let rows = try EventRepository.joined(db, userId: me, from: range.startsAt, to: range.endsAt, limit: s.services.communities.maxCalendarEvents)
                let days = range.days(rows.map { CalendarRange.Span(id: $0.id, startsAt: $0.startsAt, endsAt: $0.endsAt) })
                return CalendarResult(
                    range: kind.rawValue, timeZone: name, firstWeekday: range.firstWeekday, today: range.today.description,
                    from: range.from.description, to: range.to.description, startsAt: WireTimestamp.string(from: range.startsAt),
                    endsAt: WireTimestamp.string(from: range.endsAt), previous: range.previous?.description, next: range.next?.description,
                    days: days.map { CalendarDay(date: $0.date.description, eventIds: $0.ids) }, events: rows.map { $0.event(at: now) })
            }
        }
    }

    // MARK: - Rules

    /// A wire timestamp, or `bad_request` naming the field.
    static func instant(_ text: String, _ field: String) throws(ServiceError) -> Date {
        guard let date = WireInstant.parse(text) else {
            throw ServiceError(.badRequest, "\(field) must be a timestamp like 2026-11-23T18:30:00.000Z")
        }
        return date
    }

    /// The checked fields of an event.
    static func fields(
        title: String, description: String, place: String, startsAt: Date, endsAt: Date, timeZone: String, capacity: Int64?,
        limits: CommunityConfiguration
    ) throws(ServiceError) -> EventRepository.Fields {
        try ModerationFeature.check(title, limits.titleRule)
        if !description.isEmpty { try ModerationFeature.check(description, limits.eventDescriptionRule) }
        if !place.isEmpty { try ModerationFeature.check(place, limits.placeRule) }
        guard endsAt > startsAt else { throw ServiceError(.badRequest, "ends_at must be after starts_at") }
        guard endsAt.timeIntervalSince(startsAt) <= TimeInterval(limits.maxEventDays) * 86_400 else {
            throw ServiceError(.badRequest, "an event lasts at most \(limits.maxEventDays) days")
        }
        try checkTimeZone(timeZone)
        if let capacity, !(1...limits.maxEventCapacity).contains(capacity) {
            throw ServiceError(.badRequest, "capacity must be 1 to \(limits.maxEventCapacity)")
        }
        return EventRepository.Fields(
            title: title, description: description, place: place, startsAt: startsAt, endsAt: endsAt, timeZone: timeZone, capacity: capacity)
    }

    /// A cancelled or ended event can no longer be changed or cancelled.
    static func requireChangeable(_ row: EventRepository.Row, now: Date) throws(ServiceError) {
        switch row.status(at: now) {
        case .cancelled: throw ServiceError(.invalidState, "the event was cancelled")
        case .ended: throw ServiceError(.invalidState, "the event has ended")
        case .upcoming, .ongoing: break
        }
    }

    static func checkTimeZone(_ name: String) throws(ServiceError) {
        guard name.utf8.count <= 64, TimeZone(identifier: name) != nil else { throw ServiceError(.badRequest, "unknown time zone") }
    }

    /// A BCP 47 (or ICU) locale identifier: letters, digits, `-` and `_`, starting with a language.
    static func checkLocale(_ locale: String) throws(ServiceError) {
        let bytes = Array(locale.utf8)
        let letter = { (b: UInt8) in (65...90).contains(b) || (97...122).contains(b) }
        guard (2...35).contains(bytes.count), letter(bytes[0]), letter(bytes[1]),
            bytes.allSatisfy({ letter($0) || (48...57).contains($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        else { throw ServiceError(.badRequest, "invalid locale") }
    }


    // MARK: - Notifications

    /// A stored notification and the members to tell.
    struct Notice: Sendable {
        var notification: CommunityNotification
        var members: [Int64]
    }

    /// Writes the community notification about `row` (inside the caller's transaction).
    static func notice(_ db: PostgresConnection, _ row: EventRepository.Row, kind: String, actor: Int64) throws -> Notice {
        let notification = try CommunityNotifications.publish(
            db, communityId: row.communityId, kind: kind, eventId: row.id, postId: nil, actorId: actor, title: row.title)
        return Notice(notification: notification, members: try CommunityRepository.memberIds(db, communityId: row.communityId))
    }

    /// After the commit: `community.notification`, encoded once, to every member's devices on every node.
    static func send<Op>(_ s: RequestContext<Op>.Snapshot, _ notice: Notice) {
        CommunitiesFeature.pushNotification(s.services, notice.notification, to: notice.members)
    }

    static func database<Op, T: Sendable>(
        _ s: RequestContext<Op>.Snapshot, transaction: Bool = false, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(ServiceError) -> T {
        let pool = s.services.accounts.pool
        do {
            return transaction ? try await pool.transaction(body) : try await pool.withConnection(body)
        } catch { throw ServiceError.from(error) }
    }
}
