//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
public import SwitchboardClient
import SwitchboardProtocol

// communities, events, calendar, course, post (docs/cli.md, "Communities, events and the calendar").
extension CLIContext {
    /// Runs a client call, mapping its error to what the user sees.
    func ask<T: Sendable>(
        _ session: AuthenticatedSession, _ action: String, _ body: () async throws(SwitchboardClientError) -> T
    ) async throws(CLIError) -> T {
        do { return try await body() } catch { throw fail(error, action, session.url) }
    }

    /// A community named by `#ID`, `ID` or its name (case- and accent-insensitive, among the communities listed).
    func communityId(_ target: String, _ session: AuthenticatedSession) async throws(CLIError) -> Int64 {
        if let id = Int64(target.hasPrefix("#") ? String(target.dropFirst()) : target) { return id }
        var cursor: String?
        var hits: [Community] = []
        for _ in 0..<100 {
            let c = cursor
            let page = try await ask(session, "finding the community") { () async throws(SwitchboardClientError) in
                try await session.client.communities(limit: 100, cursor: c)
            }
            hits += page.communities.filter {
                $0.name.compare(target, options: [.caseInsensitive, .diacriticInsensitive], range: nil, locale: nil)
                    == .orderedSame
            }
            guard let next = page.nextCursor else { break }
            cursor = next
        }
        guard hits.count == 1 else {
            throw CLIError(
                hits.isEmpty ? "no community called \(target)" : "\(target) is ambiguous: use #COMMUNITY_ID",
                exitCode: .usage)
        }
        return hits[0].communityId
    }

    static func id(_ text: String, what: String) throws(CLIError) -> Int64 {
        guard let id = Int64(text.hasPrefix("#") ? String(text.dropFirst()) : text), id > 0 else {
            throw CLIError("\(what) is a number (as the lists show it)", exitCode: .usage)
        }
        return id
    }

    // MARK: communities

    static func fields(_ c: Community) -> [String: JSONValue] {
        [
            "community_id": .int(c.communityId), "name": .string(c.name), "description": .string(c.description),
            "category": .string(c.category), "picture": c.picture.map { .string($0) } ?? .null,
            "member_count": .int(c.memberCount), "joined": .bool(c.joined), "role": c.role.map { .string($0) } ?? .null,
            "unread": .int(c.unread), "archived": .bool(c.archived),
        ]
    }

    static func line(_ c: Community) -> String {
        var s = "#\(c.communityId) \(c.name)"
        if !c.category.isEmpty { s += " [\(c.category)]" }
        s += "  \(c.memberCount) member\(c.memberCount == 1 ? "" : "s")"
        if c.joined { s += c.role == "core" ? "  joined (core member)" : "  joined" }
        if c.unread > 0 { s += "  ● \(c.unread) unread" }
        if c.archived { s += "  (archived)" }
        return s
    }

    /// `communities [list]`: joined communities first, each with its unread count, then the others.
    public func listCommunities(limit: Int?, cursor: String?, all: Bool) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            var next = cursor
            var shown = 0
            var total: Int64 = 0
            for _ in 0..<(all ? 1000 : 1) {
                let c = next
                let page = try await ask(session, "listing communities") { () async throws(SwitchboardClientError) in
                    try await session.client.communities(limit: limit ?? (all ? 100 : nil), cursor: c)
                }
                total = page.unreadTotal
                for community in page.communities {
                    printer.emit(
                        OutputRecord(
                            "community", Self.fields(community), text: Self.line(community),
                            style: community.unread > 0 ? .incoming : community.joined ? .plain : .dim))
                }
                shown += page.communities.count
                next = page.nextCursor
                if next == nil { break }
            }
            if shown == 0 { printer.hint("no communities yet") }
            printer.emit(
                OutputRecord(
                    "communities.unread", ["unread_total": .int(total)],
                    text: total > 0
                        ? "● \(total) unread notification\(total == 1 ? "" : "s") in all" : "nothing unread",
                    style: total > 0 ? .incoming : .dim))
            if let next, !all { printer.hint("more: communities list --cursor \(next)") }
        }
    }

    /// `communities show C`: the community, and for members its upcoming events and latest announcements.
    public func showCommunity(_ target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let c = try await ask(session, "reading the community") { () async throws(SwitchboardClientError) in
                try await session.client.community(id)
            }
            printer.emit(OutputRecord("community", Self.fields(c), text: Self.line(c), style: .plain))
            if !c.description.isEmpty { printer.hint(c.description) }
            guard c.joined else {
                printer.hint("join it with: communities join \(c.communityId)")
                return
            }
            let events = try await ask(session, "listing events") { () async throws(SwitchboardClientError) in
                try await session.client.events(community: id, limit: 5)
            }
            printer.hint(events.events.isEmpty ? "no upcoming events" : "upcoming events:")
            for e in events.events { printer.emit(Self.eventRecord(e)) }
            if let posts = try? await session.client.posts(community: id, limit: 3), !posts.posts.isEmpty {
                printer.hint("announcements:")
                for p in posts.posts { printer.emit(Self.postRecord(p)) }
            }
        }
    }

    /// `communities join C`.
    public func joinCommunity(_ target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let c = try await ask(session, "joining the community") { () async throws(SwitchboardClientError) in
                try await session.client.joinCommunity(id)
            }
            printer.emit(
                OutputRecord(
                    "community.joined", Self.fields(c), text: "joined \(c.name) (#\(c.communityId))", style: .success))
        }
    }

    /// `communities quit C`.
    public func quitCommunity(_ target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let r = try await ask(session, "leaving the community") { () async throws(SwitchboardClientError) in
                try await session.client.quitCommunity(id)
            }
            let dropped = r.droppedEventIds
            printer.emit(
                OutputRecord(
                    "community.left",
                    ["community_id": .int(id), "dropped_event_ids": .array(dropped.map { .int($0) })],
                    text: "left community #\(id)"
                        + (dropped.isEmpty
                            ? ""
                            : "; no longer going to event\(dropped.count == 1 ? "" : "s") "
                                + dropped.map { "#\($0)" }.joined(separator: ", ")),
                    style: .success))
        }
    }

    /// `communities members C`.
    public func communityMembers(_ target: String, limit: Int?, cursor: String?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let page = try await ask(session, "listing members") { () async throws(SwitchboardClientError) in
                try await session.client.communityMembers(id, limit: limit, cursor: cursor)
            }
            for m in page.members {
                printer.emit(
                    OutputRecord(
                        "member",
                        [
                            "user_id": .int(m.user.userId), "display_name": .string(m.user.displayName),
                            "role": .string(m.role),
                            "joined_at": .string(m.joinedAt),
                        ],
                        text: "\(m.user.displayName)  #\(m.user.userId)\(m.role == "core" ? "  (core member)" : "")"))
            }
            if let next = page.nextCursor { printer.hint("more: communities members \(id) --cursor \(next)") }
        }
    }

    /// `communities create NAME` (administrators).
    public func createCommunity(name: String, description: String?, category: String?, picture: String?)
        async throws(CLIError)
    {
        try await withSession { session throws(CLIError) in
            let c = try await ask(session, "creating the community") { () async throws(SwitchboardClientError) in
                try await session.client.createCommunity(
                    name: name, description: description, category: category, picture: picture)
            }
            printer.emit(
                OutputRecord(
                    "community.created", Self.fields(c), text: "created \(c.name) (#\(c.communityId))", style: .success)
            )
        }
    }

    /// `communities update C --name/--description/--category/--picture` (administrators); `picture` "" removes it.
    public func updateCommunity(
        _ target: String, name: String?, description: String?, category: String?, picture: String?
    ) async throws(CLIError) {
        guard name != nil || description != nil || category != nil || picture != nil else {
            throw CLIError("give at least one of --name, --description, --category, --picture", exitCode: .usage)
        }
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let c = try await ask(session, "updating the community") { () async throws(SwitchboardClientError) in
                try await session.client.updateCommunity(
                    id, name: name, description: description, category: category, picture: picture)
            }
            printer.emit(
                OutputRecord(
                    "community.updated", Self.fields(c), text: "updated \(c.name) (#\(c.communityId))", style: .success)
            )
        }
    }

    /// `communities archive C` (administrators).
    public func archiveCommunity(_ target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            try await ask(session, "archiving the community") { () async throws(SwitchboardClientError) in
                try await session.client.archiveCommunity(id)
            }
            printer.emit(
                OutputRecord(
                    "community.archived", ["community_id": .int(id)], text: "archived community #\(id)", style: .success
                ))
        }
    }

    /// `communities core C USER_ID [--remove]` (administrators).
    public func setCoreMember(_ target: String, user: String, core: Bool) async throws(CLIError) {
        let userId = try Self.id(user, what: "USER")
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            try await ask(session, "changing the member's role") { () async throws(SwitchboardClientError) in
                try await session.client.setCoreMember(id, userId: userId, core: core)
            }
            printer.emit(
                OutputRecord(
                    "community.role",
                    ["community_id": .int(id), "user_id": .int(userId), "role": .string(core ? "core" : "member")],
                    text: "user #\(userId) is \(core ? "now a core member" : "no longer a core member") of #\(id)",
                    style: .success))
        }
    }

    /// `communities notifications C`: newest first, unread ones marked.
    public func communityNotifications(_ target: String, before: Int64?, limit: Int?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let page = try await ask(session, "reading notifications") { () async throws(SwitchboardClientError) in
                try await session.client.communityNotifications(id, beforeSeq: before, limit: limit)
            }
            if page.notifications.isEmpty { printer.hint("no notifications") }
            for n in page.notifications {
                let unread = n.seq > page.readSeq
                printer.emit(
                    OutputRecord(
                        "notification", Self.notificationFields(n).merging(["unread": .bool(unread)]) { a, _ in a },
                        text: (unread ? "● " : "  ") + Self.notificationText(n), style: unread ? .incoming : .dim))
            }
            if let next = page.nextBeforeSeq { printer.hint("more: communities notifications \(id) --before \(next)") }
        }
    }

    /// `communities read C [--seq N]`: clears the community's unread marker (up to N).
    public func readCommunity(_ target: String, seq: Int64?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let r = try await ask(session, "marking as read") { () async throws(SwitchboardClientError) in
                try await session.client.readCommunity(id, seq: seq)
            }
            printer.emit(
                OutputRecord(
                    "community.read",
                    [
                        "community_id": .int(id), "read_seq": .int(r.readSeq), "unread": .int(r.unread),
                        "unread_total": .int(r.unreadTotal),
                    ],
                    text:
                        """
                        read up to #\(r.readSeq) in community #\(id); \(r.unread) unread there, \(r.unreadTotal) in all
                        """,
                    style: .success))
        }
    }

    static func notificationFields(_ n: CommunityNotification) -> [String: JSONValue] {
        [
            "community_id": .int(n.communityId), "seq": .int(n.seq), "kind": .string(n.kind),
            "event_id": n.eventId.map { .int($0) } ?? .null, "post_id": n.postId.map { .int($0) } ?? .null,
            "actor_id": n.actor.map { .int($0.userId) } ?? .null, "title": .string(n.title),
            "created_at": .string(n.createdAt),
        ]
    }

    static func notificationText(_ n: CommunityNotification) -> String {
        let what: String
        switch n.kind {
        case "event.published": what = "new event"
        case "event.changed": what = "event changed"
        case "event.cancelled": what = "event cancelled"
        case "announcement": what = "announcement"
        case "lesson": what = "new lesson"
        default: what = n.kind
        }
        let ref = n.eventId.map { " (event #\($0))" } ?? n.postId.map { " (post #\($0))" } ?? ""
        return "#\(n.seq) \(what): \(n.title)\(ref)" + (n.actor.map { " by \($0.displayName)" } ?? "")
    }

    // MARK: events

    static func eventFields(_ e: EventInfo) -> [String: JSONValue] {
        [
            "event_id": .int(e.eventId), "community_id": .int(e.communityId), "title": .string(e.title),
            "description": .string(e.description), "place": .string(e.place),
            "starts_at": .string(e.startsAt), "ends_at": .string(e.endsAt), "time_zone": .string(e.timeZone),
            "capacity": e.capacity.map { .int($0) } ?? .null, "participant_count": .int(e.participantCount),
            "joined": .bool(e.joined),
            "status": .string(e.status), "version": .int(e.version),
        ]
    }

    static func eventRecord(_ e: EventInfo, zone: TimeZone? = nil) -> OutputRecord {
        let tz = zone ?? CommunityTime.zone(e.timeZone) ?? TimeZone(identifier: "UTC")!
        // The zone's name as given (Foundation on Linux calls UTC "GMT").
        let zoneName = zone.map(\.identifier) ?? e.timeZone
        var s =
            """
            #\(e.eventId) \(e.title)  \(CommunityTime.span(startsAt: e.startsAt, endsAt: e.endsAt, in: tz)) \(zoneName)
            """
        if !e.place.isEmpty { s += "  @ \(e.place)" }
        s += "  \(e.participantCount)" + (e.capacity.map { "/\($0)" } ?? "") + " going"
        if e.joined { s += "  ✓ joined" }
        if e.status != "upcoming" { s += "  [\(e.status)]" }
        let style: OutputStyle = e.status == "cancelled" || e.status == "ended" ? .dim : e.joined ? .success : .plain
        return OutputRecord("event", eventFields(e), text: s, style: style)
    }

    /// `events list C [--past]`.
    public func listEvents(_ target: String, past: Bool, cursor: String?, limit: Int?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let page = try await ask(session, "listing events") { () async throws(SwitchboardClientError) in
                try await session.client.events(community: id, past: past, cursor: cursor, limit: limit)
            }
            if page.events.isEmpty { printer.hint(past ? "no past events" : "no upcoming events") }
            for e in page.events { printer.emit(Self.eventRecord(e)) }
            if let next = page.nextCursor {
                printer.hint("more: events list \(id)\(past ? " --past" : "") --cursor \(next)")
            }
        }
    }

    /// `events show E`.
    public func showEvent(_ event: String) async throws(CLIError) {
        let id = try Self.id(event, what: "EVENT")
        try await withSession { session throws(CLIError) in
            let e = try await ask(session, "reading the event") { () async throws(SwitchboardClientError) in
                try await session.client.event(id)
            }
            printer.emit(Self.eventRecord(e))
            if !e.description.isEmpty { printer.hint(e.description) }
        }
    }

    /// `events join E` / `events drop E`.
    public func joinEvent(_ event: String, join: Bool) async throws(CLIError) {
        let id = try Self.id(event, what: "EVENT")
        try await withSession { session throws(CLIError) in
            let e = try await ask(session, join ? "joining the event" : "dropping the event") {
                () async throws(SwitchboardClientError) in
                join ? try await session.client.joinEvent(id) : try await session.client.dropEvent(id)
            }
            var record = Self.eventRecord(e)
            record.type = join ? "event.joined" : "event.dropped"
            record.text = (join ? "going to " : "no longer going to ") + record.text
            record.style = .success
            printer.emit(record)
        }
    }

    /// The fields of `events create`/`update` from what the user typed (times in `zone`, else the machine's zone).
    public func eventParameters(
        title: String?, description: String?, place: String?, starts: String?, ends: String?, durationMinutes: Int?,
        zone: String?,
        capacity: Int?, noCapacity: Bool
    ) throws(CLIError) -> EventFields {
        var f = EventFields()
        let zoneName = zone ?? CommunityTime.localZoneName(environment: environment)
        guard let tz = CommunityTime.zone(zoneName) else {
            throw CLIError("unknown time zone \(zoneName)", exitCode: .usage)
        }
        f.title = title
        f.description = description
        f.place = place
        var start: Date?
        if let starts {
            guard let d = CommunityTime.parse(starts, in: tz) else {
                throw CLIError("--starts: \(starts) is not a date and time (2026-12-01 14:30)", exitCode: .usage)
            }
            start = d
            f.startsAt = CommunityTime.wire(d)
        }
        if let ends {
            guard let d = CommunityTime.parse(ends, in: tz) else {
                throw CLIError("--ends: \(ends) is not a date and time (2026-12-01 16:00)", exitCode: .usage)
            }
            f.endsAt = CommunityTime.wire(d)
        } else if let durationMinutes {
            guard let start, durationMinutes > 0 else {
                throw CLIError("--duration needs --starts and a positive number of minutes", exitCode: .usage)
            }
            f.endsAt = CommunityTime.wire(start.addingTimeInterval(Double(durationMinutes) * 60))
        }
        if zone != nil || starts != nil || ends != nil { f.timeZone = zoneName }
        if noCapacity {
            f.capacity = .some(nil)
        } else if let capacity {
            f.capacity = .some(Int64(capacity))
        }
        return f
    }

    /// `events create C --title T --starts S (--ends E | --duration M) ...` (administrators).
    public func createEvent(_ target: String, fields: EventFields) async throws(CLIError) {
        guard let title = fields.title, let startsAt = fields.startsAt, let endsAt = fields.endsAt,
            let timeZone = fields.timeZone
        else {
            throw CLIError("events create needs --title, --starts and --ends (or --duration)", exitCode: .usage)
        }
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let e = try await ask(session, "publishing the event") { () async throws(SwitchboardClientError) in
                try await session.client.createEvent(
                    .init(
                        communityId: id, title: title, description: fields.description, place: fields.place,
                        startsAt: startsAt,
                        endsAt: endsAt, timeZone: timeZone, capacity: fields.capacity ?? nil))
            }
            var record = Self.eventRecord(e)
            record.type = "event.created"
            record.text = "published " + record.text
            record.style = .success
            printer.emit(record)
        }
    }

    /// `events update E ...` (administrators).
    public func updateEvent(_ event: String, fields: EventFields) async throws(CLIError) {
        let id = try Self.id(event, what: "EVENT")
        guard !fields.isEmpty else {
            throw CLIError("nothing to change: give --title, --starts, --ends, --place, ...", exitCode: .usage)
        }
        try await withSession { session throws(CLIError) in
            let e = try await ask(session, "changing the event") { () async throws(SwitchboardClientError) in
                try await session.client.updateEvent(
                    .init(
                        eventId: id, title: fields.title, description: fields.description, place: fields.place,
                        startsAt: fields.startsAt,
                        endsAt: fields.endsAt, timeZone: fields.timeZone, capacity: fields.capacity))
            }
            var record = Self.eventRecord(e)
            record.type = "event.updated"
            record.text = "changed " + record.text
            record.style = .success
            printer.emit(record)
        }
    }

    /// `events cancel E` (administrators).
    public func cancelEvent(_ event: String) async throws(CLIError) {
        let id = try Self.id(event, what: "EVENT")
        try await withSession { session throws(CLIError) in
            let e = try await ask(session, "cancelling the event") { () async throws(SwitchboardClientError) in
                try await session.client.cancelEvent(id)
            }
            var record = Self.eventRecord(e)
            record.type = "event.cancelled"
            record.text = "cancelled " + record.text
            record.style = .success
            printer.emit(record)
        }
    }

    // MARK: calendar

    /// `calendar [day|week|month|year] [DATE] [--tz ZONE]`: a month as a grid (today in brackets, days with
    /// events starred), then every day with events and its events' hours in the calendar's zone.
    public func calendar(range: String, date: String?, zone: String?, locale: String?) async throws(CLIError) {
        guard ["day", "week", "month", "year"].contains(range) else {
            throw CLIError("the range is day, week, month or year", exitCode: .usage)
        }
        if let date, CalendarGrid.components(date) == nil { throw CLIError("DATE is YYYY-MM-DD", exitCode: .usage) }
        try await withSession { session throws(CLIError) in
            let view = try await ask(session, "reading the calendar") { () async throws(SwitchboardClientError) in
                try await session.client.calendar(range: range, date: date, timeZone: zone, locale: locale)
            }
            let tz = CommunityTime.zone(view.timeZone) ?? TimeZone(identifier: "UTC")!
            let byId = Dictionary(view.events.map { ($0.eventId, $0) }, uniquingKeysWith: { a, _ in a })
            let days = view.days.sorted { $0.date < $1.date }
            printer.emit(
                OutputRecord(
                    "calendar",
                    [
                        "range": .string(view.range), "time_zone": .string(view.timeZone),
                        "first_weekday": .int(Int64(view.firstWeekday)),
                        "today": .string(view.today), "from": .string(view.from), "to": .string(view.to),
                        "previous": view.previous.map { .string($0) } ?? .null,
                        "next": view.next.map { .string($0) } ?? .null,
                        "days": .array(
                            days.map {
                                .object(["date": .string($0.date), "event_ids": .array($0.eventIds.map { .int($0) })])
                            }),
                    ],
                    text:
                        """
                        \(view.range) \(view.from == view.to ? view.from : "\(view.from) – \(view.to)") \
                        (\(view.timeZone)); today is \(view.today)
                        """
                ))
            if case .human = printer.mode {
                let marked = Set(days.map(\.date))
                switch view.range {
                case "month":
                    for l in CalendarGrid.month(
                        containing: view.from, firstWeekday: view.firstWeekday, today: view.today, marked: marked)
                    {
                        printer.emit(OutputRecord("grid", text: l))
                    }
                case "year":
                    var counts: [String: Int] = [:]
                    for d in days { counts[String(d.date.prefix(7)), default: 0] += 1 }
                    for month in counts.keys.sorted() {
                        let n = counts[month]!
                        let title =
                            CalendarGrid.month(containing: month + "-01", firstWeekday: 1, today: "", marked: []).first
                            ?? month
                        printer.emit(OutputRecord("grid", text: "\(title): \(n) day\(n == 1 ? "" : "s") with events"))
                    }
                default:
                    break
                }
            }
            if days.isEmpty { printer.hint("no events joined in this \(view.range)") }
            for day in days {
                printer.emit(
                    OutputRecord(
                        "calendar.day",
                        ["date": .string(day.date), "event_ids": .array(day.eventIds.map { .int($0) })],
                        text: CalendarGrid.dayTitle(day.date) + (day.date == view.today ? "  (today)" : ""),
                        style: day.date == view.today ? .incoming : .plain))
                guard case .human = printer.mode else { continue }
                for id in day.eventIds {
                    guard let e = byId[id] else { continue }
                    let hours = CommunityTime.hours(startsAt: e.startsAt, endsAt: e.endsAt, on: day.date, in: tz)
                    var s = "    \(hours)  \(e.title)  #\(e.eventId)"
                    if !e.place.isEmpty { s += "  @ \(e.place)" }
                    if e.status == "cancelled" { s += "  [cancelled]" }
                    printer.emit(
                        OutputRecord("calendar.entry", text: s, style: e.status == "cancelled" ? .dim : .plain))
                }
            }
            if case .json = printer.mode {
                for e in view.events { printer.emit(Self.eventRecord(e, zone: tz)) }
            }
            printer.hint(
                """
                previous: calendar \(view.range) \(view.previous ?? "")   next: calendar \(view.range) \
                \(view.next ?? "")
                """
            )
        }
    }

    // MARK: posts and courses

    static func postRecord(_ p: CommunityPost) -> OutputRecord {
        let fields: [String: JSONValue] = [
            "post_id": .int(p.postId), "community_id": .int(p.communityId), "kind": .string(p.kind),
            "position": p.position.map { .int(Int64($0)) } ?? .null, "title": .string(p.title), "body": .string(p.body),
            "author_id": p.author.map { .int($0.userId) } ?? .null,
            "voice_clip_id": p.voiceClipId.map { .int($0) } ?? .null,
            "video_url": p.videoUrl.map { .string($0) } ?? .null, "completed": .bool(p.completed),
            "created_at": .string(p.createdAt),
        ]
        var s: String
        if p.kind == "lesson" {
            s = "\(p.completed ? "[x]" : "[ ]") \(p.position.map { "\($0). " } ?? "")\(p.title)  #\(p.postId)"
        } else {
            s = "#\(p.postId) \(p.title)" + (p.author.map { " — \($0.displayName)" } ?? "")
        }
        if !p.body.isEmpty { s += ": " + String(p.body.prefix(120)) }
        if let v = p.videoUrl { s += "  video: \(v)" }
        if let v = p.voiceClipId { s += "  voice clip #\(v)" }
        return OutputRecord(
            p.kind == "lesson" ? "lesson" : "announcement", fields, text: s, style: p.completed ? .dim : .plain)
    }

    /// `course C`: the lessons in order with my progress.
    public func showCourse(_ target: String) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let course = try await ask(session, "reading the course") { () async throws(SwitchboardClientError) in
                try await session.client.course(community: id)
            }
            if course.lessons.isEmpty { printer.hint("no lessons yet") }
            for lesson in course.lessons { printer.emit(Self.postRecord(lesson)) }
            printer.emit(
                OutputRecord(
                    "course.progress",
                    [
                        "community_id": .int(id), "completed": .int(Int64(course.completed)),
                        "total": .int(Int64(course.total)),
                    ],
                    text: "completed \(course.completed) of \(course.total)",
                    style: course.total > 0 && course.completed == course.total ? .success : .plain))
        }
    }

    /// `course C complete POST_ID [--undo]`.
    public func completeLesson(_ target: String, post: String, completed: Bool) async throws(CLIError) {
        let postId = try Self.id(post, what: "POST_ID")
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let r = try await ask(session, "recording your progress") { () async throws(SwitchboardClientError) in
                try await session.client.completeLesson(postId, completed: completed)
            }
            printer.emit(
                OutputRecord(
                    "course.progress",
                    [
                        "community_id": .int(id), "post_id": .int(postId), "lesson_completed": .bool(completed),
                        "completed": .int(Int64(r.completed)), "total": .int(Int64(r.total)),
                    ],
                    text:
                        """
                        lesson #\(postId) \(completed ? "completed" : "marked not completed"); \(r.completed) of \
                        \(r.total) done
                        """,
                    style: .success))
        }
    }

    /// `post C TITLE [--body B] [--lesson [--position N]] [--video-url U] [--voice FILE]` (core members,
    /// administrators).
    public func createPost(
        _ target: String, title: String, body: String?, lesson: Bool, position: Int?, videoURL: String?,
        voiceFile: String?
    ) async throws(CLIError) {
        var audio: [UInt8]?
        if let voiceFile {
            guard let data = FileManager.default.contents(atPath: voiceFile) else {
                throw CLIError("cannot read \(voiceFile)", exitCode: .localFile)
            }
            audio = Array(data)
        }
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            var voiceClipId: Int64?
            if let audio {
                let clip = try await ask(session, "uploading the voice clip") {
                    () async throws(SwitchboardClientError) in
                    try await session.client.uploadVoice(audio)
                }
                voiceClipId = clip.voiceId
            }
            let clipId = voiceClipId
            let p = try await ask(session, "posting") { () async throws(SwitchboardClientError) in
                try await session.client.createPost(
                    community: id, kind: lesson ? "lesson" : "announcement", title: title, body: body,
                    voiceClipId: clipId, videoUrl: videoURL,
                    position: lesson ? position : nil)
            }
            var record = Self.postRecord(p)
            record.type = "post.created"
            record.text = "posted " + (lesson ? "lesson " : "announcement ") + record.text
            record.style = .success
            printer.emit(record)
        }
    }

    /// `post list C [--lessons]`: announcements (or lessons), newest first.
    public func listPosts(_ target: String, lessons: Bool, before: Int64?, limit: Int?) async throws(CLIError) {
        try await withSession { session throws(CLIError) in
            let id = try await communityId(target, session)
            let page = try await ask(session, "listing posts") { () async throws(SwitchboardClientError) in
                try await session.client.posts(
                    community: id, kind: lessons ? "lesson" : "announcement", before: before, limit: limit)
            }
            if page.posts.isEmpty { printer.hint(lessons ? "no lessons" : "no announcements") }
            for p in page.posts { printer.emit(Self.postRecord(p)) }
            if let next = page.nextBefore {
                printer.hint("more: post list \(id)\(lessons ? " --lessons" : "") --before \(next)")
            }
        }
    }
}

/// The fields of `events create`/`update` as the user gave them (nil: not given). `capacity` `.some(nil)` is
/// `--no-capacity` (sent as `capacity: null` by `events update`).
public struct EventFields: Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var place: String?
    /// Wire timestamps.
    public var startsAt: String?
    public var endsAt: String?
    public var timeZone: String?
    public var capacity: Int64??

    public init() {}

    /// Whether nothing was given.
    public var isEmpty: Bool {
        title == nil && description == nil && place == nil && startsAt == nil && endsAt == nil && timeZone == nil
            && capacity == nil
    }
}

/// Live community events for `listen` and the interactive sessions.
extension EventFormatter {
    /// `community.*`, `event.*` and `course.progress` events; nil for other names.
    public static func community(_ raw: RawEvent) -> OutputRecord? {
        switch raw.name {
        case CommunityNotificationEvent.name:
            guard let n = try? raw.decode(CommunityNotificationEvent.self).notification else { return nil }
            return OutputRecord(
                "community.notification", CLIContext.notificationFields(n),
                text: "● community #\(n.communityId): " + CLIContext.notificationText(n), style: .incoming)
        case CommunityReadEvent.name:
            guard let r = try? raw.decode(CommunityReadEvent.self) else { return nil }
            return OutputRecord(
                "community.read",
                [
                    "community_id": .int(r.communityId), "read_seq": .int(r.readSeq), "unread": .int(r.unread),
                    "unread_total": .int(r.unreadTotal),
                ],
                text: "community #\(r.communityId) read up to #\(r.readSeq) (\(r.unreadTotal) unread in all)",
                style: .dim)
        case CommunityJoinedEvent.name:
            guard let c = try? raw.decode(CommunityJoinedEvent.self).community else { return nil }
            return OutputRecord(raw.name, CLIContext.fields(c), text: "joined: \(CLIContext.line(c))", style: .dim)
        case CommunityUpdatedEvent.name:
            guard let c = try? raw.decode(CommunityUpdatedEvent.self).community else { return nil }
            return OutputRecord(raw.name, CLIContext.fields(c), text: "updated: \(CLIContext.line(c))", style: .dim)
        case CommunityLeftEvent.name:
            guard let c = try? raw.decode(CommunityLeftEvent.self) else { return nil }
            return OutputRecord(
                raw.name, ["community_id": .int(c.communityId)], text: "community #\(c.communityId) left", style: .dim)
        case CommunityArchivedEvent.name:
            guard let c = try? raw.decode(CommunityArchivedEvent.self) else { return nil }
            return OutputRecord(
                raw.name, ["community_id": .int(c.communityId)], text: "community #\(c.communityId) archived",
                style: .dim)
        case EventJoinedEvent.name:
            guard let e = try? raw.decode(EventJoinedEvent.self).event else { return nil }
            var r = CLIContext.eventRecord(e)
            r.type = raw.name
            r.text = "going to " + r.text
            return r
        case CourseEvents.PostUpdated.name:
            guard let p = try? raw.decode(CourseEvents.PostUpdated.self).post else { return nil }
            var r = CLIContext.postRecord(p)
            r.type = raw.name
            r.text = "post changed: " + r.text
            return r
        default:
            guard raw.name.hasPrefix("community.") || raw.name.hasPrefix("event.") || raw.name.hasPrefix("course.")
            else { return nil }
            return OutputRecord(
                raw.name, ["frame": .string(String(decoding: raw.frame, as: UTF8.self))], text: "event \(raw.name)",
                style: .dim)
        }
    }
}
