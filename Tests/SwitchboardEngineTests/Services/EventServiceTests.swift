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
import Testing

@testable import SwitchboardServer

/// `EventService` without sockets: who publishes, sees, joins and drops events, the rules of an event's fields and
/// status on a manual wall clock, the capacity, the notifications and who hears them, the lists and the calendar's
/// ranges.
@Suite("Event service (the test database, a manual wall clock)")
struct EventServiceTests {
    let clock = ManualWallClock()

    func service(_ limits: CommunityConfiguration = CommunityConfiguration()) throws -> EventService {
        EventService(db: try EngineTestDatabase.shared.pool, limits: limits, now: clock.reading)
    }

    /// `events.create`'s parameters for an event starting `hours` from the clock's now and lasting `length` hours.
    func draft(
        _ communityId: Int64, _ title: String = "Walk", in hours: Double = 1, lasting length: Double = 2,
        capacity: Int64? = nil
    ) -> Ops.EventsCreate.Parameters {
        let start = clock.now.addingTimeInterval(hours * 3600)
        return Ops.EventsCreate.Parameters(
            communityId: communityId, title: title, startsAt: WireTimestamp.string(from: start),
            endsAt: WireTimestamp.string(from: start.addingTimeInterval(length * 3600)), timeZone: "Europe/Paris",
            capacity: capacity)
    }

    @Test func onlyAdministratorsPublishAndEveryMemberIsNotified() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann, bob) = (try await db.user("admin"), try await db.user("ann"), try await db.user("bob"))
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [ann], core: [bob])
        let events = try service()
        // A member, even a core one, is not an organiser.
        for caller in [ann, bob] {
            await #expect(throws: CommunityError.administratorsOnly) {
                _ = try await events.create(Caller(userId: caller), draft(community))
            }
        }
        let (created, told) = try await events.create(Caller(userId: admin), draft(community, capacity: 10))
        #expect(created.event.status == "upcoming")
        #expect(created.event.capacity == 10 && created.event.participantCount == 0)
        // Every member hears the notification once (the administrator is not a member here).
        #expect(told.count == 1)
        let notice = try #require(told.first)
        #expect(notice.name == "community.notification")
        #expect(Set(notice.users) == [ann, bob])
        let notification = try #require((notice.event as? CommunityNotificationEvent)?.notification)
        #expect(notification.kind == "event.published" && notification.eventId == created.event.eventId)
        #expect(notification.actor?.userId == admin)
        // A suspended administrator is no administrator.
        try await db.suspend(admin)
        await #expect(throws: CommunityError.administratorsOnly) {
            _ = try await events.create(Caller(userId: admin), draft(community))
        }
    }

    @Test func theFieldsAreCheckedBeforeTheDatabase() async throws {
        let db = EngineTestDatabase.shared
        let admin = try await db.user("admin")
        try await db.makeAdministrator(admin)
        var limits = CommunityConfiguration()
        limits.maxEventDays = 2
        limits.maxEventCapacity = 10
        let events = try service(limits)
        let me = Caller(userId: admin)
        // No community is read: the rules come first (the id names no community).
        let nowhere: Int64 = 9_000_000_000
        var bad = draft(nowhere)
        bad.startsAt = "tomorrow"
        await #expect(throws: CommunityError.badTimestamp(field: "starts_at")) { _ = try await events.create(me, bad) }
        #expect(CommunityError.badTimestamp(field: "starts_at").wire.message.hasPrefix("starts_at must be"))
        await #expect(throws: CommunityError.endsBeforeStart) {
            _ = try await events.create(me, draft(nowhere, lasting: 0))
        }
        await #expect(throws: CommunityError.eventTooLong(maxDays: 2)) {
            _ = try await events.create(me, draft(nowhere, lasting: 49))
        }
        await #expect(throws: CommunityError.badCapacity(max: 10)) {
            _ = try await events.create(me, draft(nowhere, capacity: 11))
        }
        var zone = draft(nowhere)
        zone.timeZone = "Mars/Olympus_Mons"
        await #expect(throws: CommunityError.unknownTimeZone) { _ = try await events.create(me, zone) }
        await #expect(throws: CommunityError.self) { _ = try await events.create(me, draft(nowhere, "")) }
        // Valid fields reach the database, which knows no such community.
        await #expect(throws: CommunityError.noSuchCommunity) { _ = try await events.create(me, draft(nowhere)) }
    }

    @Test func joiningAndDroppingFollowTheClockAndTheCapacity() async throws {
        let db = EngineTestDatabase.shared
        let admin = try await db.user("admin")
        let (ann, bob, cat, zed) = (
            try await db.user("ann"), try await db.user("bob"), try await db.user("cat"), try await db.user("zed")
        )
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [ann, bob, cat])
        let events = try service()
        let (created, _) = try await events.create(Caller(userId: admin), draft(community, in: 1, capacity: 2))
        let id = created.event.eventId
        // A stranger learns nothing it may not see and cannot join.
        await #expect(throws: CommunityError.eventsMembersOnly) { _ = try await events.event(id, viewer: zed) }
        await #expect(throws: CommunityError.joinMembersOnly) {
            _ = try await events.join(Caller(userId: zed), eventId: id)
        }
        await #expect(throws: CommunityError.noSuchEvent) {
            _ = try await events.drop(Caller(userId: zed), eventId: id)
        }
        // Administrators see and organise but only members take places.
        await #expect(throws: CommunityError.joinMembersOnly) {
            _ = try await events.join(Caller(userId: admin), eventId: id)
        }

        let (joined, toAnn) = try await events.join(Caller(userId: ann), eventId: id)
        #expect(joined.event.joined && joined.event.participantCount == 1)
        #expect(toAnn.map(\.name) == ["event.joined"] && toAnn.first?.users == [ann])
        await #expect(throws: CommunityError.alreadyJoined) {
            _ = try await events.join(Caller(userId: ann), eventId: id)
        }
        _ = try await events.join(Caller(userId: bob), eventId: id)
        await #expect(throws: CommunityError.eventFull) { _ = try await events.join(Caller(userId: cat), eventId: id) }

        let (dropped, toAnnAgain) = try await events.drop(Caller(userId: ann), eventId: id)
        #expect(!dropped.event.joined && dropped.event.participantCount == 1)
        #expect(toAnnAgain.map(\.name) == ["event.dropped"] && toAnnAgain.first?.users == [ann])
        await #expect(throws: CommunityError.notJoined) { _ = try await events.drop(Caller(userId: ann), eventId: id) }

        // Started: still joinable until it ends.
        clock.advance(by: 2 * 3600)
        #expect(try await events.event(id, viewer: cat).event.status == "ongoing")
        #expect(try await events.join(Caller(userId: cat), eventId: id).0.event.participantCount == 2)

        // Ended (now ≥ ends_at): no join, no drop, no change, no cancellation.
        clock.advance(by: 3600)
        #expect(try await events.event(id, viewer: ann).event.status == "ended")
        await #expect(throws: CommunityError.eventEnded) { _ = try await events.join(Caller(userId: ann), eventId: id) }
        await #expect(throws: CommunityError.eventEnded) { _ = try await events.drop(Caller(userId: bob), eventId: id) }
        await #expect(throws: CommunityError.eventOver) {
            _ = try await events.update(Caller(userId: admin), Ops.EventsUpdate.Parameters(eventId: id, title: "Late"))
        }
        await #expect(throws: CommunityError.eventOver) {
            _ = try await events.cancel(Caller(userId: admin), eventId: id)
        }
        #expect(CommunityError.eventEnded.wire.code == .eventEnded)
        #expect(CommunityError.eventOver.wire.code == .invalidState)
    }

    @Test func changesAndCancellationsAreNotifiedAndRefusedOnceCancelled() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann, bob) = (try await db.user("admin"), try await db.user("ann"), try await db.user("bob"))
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [ann, bob])
        let events = try service()
        let organiser = Caller(userId: admin)
        let id = try await events.create(organiser, draft(community)).0.event.eventId
        _ = try await events.join(Caller(userId: ann), eventId: id)
        _ = try await events.join(Caller(userId: bob), eventId: id)
        await #expect(throws: CommunityError.capacityBelowParticipants(2)) {
            _ = try await events.update(organiser, Ops.EventsUpdate.Parameters(eventId: id, capacity: .some(1)))
        }
        await #expect(throws: CommunityError.administratorsOnly) {
            _ = try await events.update(Caller(userId: ann), Ops.EventsUpdate.Parameters(eventId: id, title: "Mine"))
        }
        let (changed, toldChange) = try await events.update(
            organiser, Ops.EventsUpdate.Parameters(eventId: id, title: "Long walk", capacity: .some(nil)))
        #expect(changed.event.title == "Long walk" && changed.event.capacity == nil && changed.event.version == 2)
        let change = try #require(toldChange.first?.event as? CommunityNotificationEvent)
        #expect(change.notification.kind == "event.changed" && Set(toldChange.first?.users ?? []) == [ann, bob])

        let (cancelled, toldCancel) = try await events.cancel(organiser, eventId: id)
        #expect(cancelled.event.status == "cancelled" && cancelled.event.participantCount == 2)
        #expect((toldCancel.first?.event as? CommunityNotificationEvent)?.notification.kind == "event.cancelled")
        await #expect(throws: CommunityError.eventCancelled) { _ = try await events.cancel(organiser, eventId: id) }
        await #expect(throws: CommunityError.eventCancelled) {
            _ = try await events.update(organiser, Ops.EventsUpdate.Parameters(eventId: id, title: "Again"))
        }
        // A cancelled event keeps its participants, who may still give up their places, but takes no one new.
        _ = try await events.drop(Caller(userId: bob), eventId: id)
        await #expect(throws: CommunityError.eventCancelled) {
            _ = try await events.join(Caller(userId: bob), eventId: id)
        }
    }

    @Test func anArchivedCommunitysEventsAreFrozenAndHiddenFromStrangers() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann, zed) = (try await db.user("admin"), try await db.user("ann"), try await db.user("zed"))
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [ann])
        let events = try service()
        let id = try await events.create(Caller(userId: admin), draft(community)).0.event.eventId
        _ = try await CommunityService(db: try db.pool, limits: CommunityConfiguration())
            .archive(Caller(userId: admin), communityId: community)
        await #expect(throws: CommunityError.archivedEvents) {
            _ = try await events.create(Caller(userId: admin), draft(community))
        }
        await #expect(throws: CommunityError.archivedEvents) {
            _ = try await events.join(Caller(userId: ann), eventId: id)
        }
        // Its members still see it; to anyone else the event does not exist.
        #expect(try await events.event(id, viewer: ann).event.eventId == id)
        await #expect(throws: CommunityError.noSuchEvent) { _ = try await events.event(id, viewer: zed) }
        await #expect(throws: CommunityError.noSuchCommunity) {
            _ = try await events.list(communityId: community, viewer: zed, direction: nil, cursor: nil, limit: nil)
        }
    }

    @Test func theListSplitsUpcomingFromPastOnTheClockInPages() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann, zed) = (try await db.user("admin"), try await db.user("ann"), try await db.user("zed"))
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [ann])
        let events = try service()
        var ids: [Int64] = []
        for hours in [1.0, 5, 9] {
            ids.append(try await events.create(Caller(userId: admin), draft(community, in: hours)).0.event.eventId)
        }
        let first = try await events.list(communityId: community, viewer: ann, direction: nil, cursor: nil, limit: 2)
        #expect(first.events.map(\.eventId) == [ids[0], ids[1]])
        let cursor = try #require(first.nextCursor)
        let second = try await events.list(
            communityId: community, viewer: ann, direction: "upcoming", cursor: cursor, limit: 2)
        #expect(second.events.map(\.eventId) == [ids[2]] && second.nextCursor == nil)
        // Nine and a half hours on, the first two have ended (past, latest first) and the third is on.
        clock.advance(by: 9.5 * 3600)
        let past = try await events.list(
            communityId: community, viewer: ann, direction: "past", cursor: nil, limit: nil)
        #expect(past.events.map(\.eventId) == [ids[1], ids[0]])
        #expect(past.events.allSatisfy { $0.status == "ended" })
        let upcoming = try await events.list(
            communityId: community, viewer: ann, direction: nil, cursor: nil, limit: nil)
        #expect(upcoming.events.map(\.eventId) == [ids[2]] && upcoming.events.first?.status == "ongoing")
        await #expect(throws: CommunityError.badDirection) {
            _ = try await events.list(communityId: community, viewer: ann, direction: "later", cursor: nil, limit: nil)
        }
        await #expect(throws: CommunityError.badEventCursor) {
            _ = try await events.list(communityId: community, viewer: ann, direction: nil, cursor: "x", limit: nil)
        }
        await #expect(throws: CommunityError.pageLimit(max: 100)) {
            _ = try await events.list(communityId: community, viewer: ann, direction: nil, cursor: nil, limit: 101)
        }
        await #expect(throws: CommunityError.eventsMembersOnly) {
            _ = try await events.list(communityId: community, viewer: zed, direction: nil, cursor: nil, limit: nil)
        }
    }

    @Test func participantsInPagesForMembersOnly() async throws {
        let db = EngineTestDatabase.shared
        let admin = try await db.user("admin")
        try await db.makeAdministrator(admin)
        var members: [Int64] = []
        for name in ["a", "b", "c"] { members.append(try await db.user(name)) }
        let zed = try await db.user("zed")
        let community = try await db.community(by: admin, members: members)
        let events = try service()
        let id = try await events.create(Caller(userId: admin), draft(community)).0.event.eventId
        for member in members { _ = try await events.join(Caller(userId: member), eventId: id) }
        let page = try await events.participants(eventId: id, viewer: admin, cursor: nil, limit: 2)
        #expect(page.participants.map(\.userId) == Array(members.sorted().prefix(2)))
        let rest = try await events.participants(eventId: id, viewer: members[0], cursor: page.nextCursor, limit: 2)
        #expect(rest.participants.map(\.userId) == [members.sorted()[2]] && rest.nextCursor == nil)
        await #expect(throws: CommunityError.badEventCursor) {
            _ = try await events.participants(eventId: id, viewer: admin, cursor: "0", limit: nil)
        }
        await #expect(throws: CommunityError.pageLimit(max: 200)) {
            _ = try await events.participants(eventId: id, viewer: admin, cursor: nil, limit: 201)
        }
        await #expect(throws: CommunityError.eventsMembersOnly) {
            _ = try await events.participants(eventId: id, viewer: zed, cursor: nil, limit: nil)
        }
    }

    @Test func theCalendarsRangesFollowTheZoneTheLocaleAndTheClock() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann, bob) = (try await db.user("admin"), try await db.user("ann"), try await db.user("bob"))
        try await db.makeAdministrator(admin)
        let community = try await db.community(by: admin, members: [ann, bob])
        let events = try service()
        // The clock: Wednesday 2031-03-12 10:00 UTC. Events that evening, on Saturday, and in April.
        let tonight = try await events.create(Caller(userId: admin), draft(community, "Tonight", in: 8)).0.event.eventId
        let saturday = try await events.create(Caller(userId: admin), draft(community, "Sat", in: 72)).0.event.eventId
        let april = try await events.create(Caller(userId: admin), draft(community, "April", in: 24 * 30)).0.event
            .eventId
        for id in [tonight, saturday, april] { _ = try await events.join(Caller(userId: ann), eventId: id) }

        let week = try await events.calendar(
            viewer: ann, Ops.CalendarGet.Parameters(range: "week", timeZone: "UTC", locale: "en-US"))
        #expect(week.today == "2031-03-12" && week.firstWeekday == 1)
        #expect(week.from == "2031-03-09" && week.to == "2031-03-15")
        #expect(week.previous == "2031-03-02" && week.next == "2031-03-16")
        #expect(week.events.map(\.eventId) == [tonight, saturday])
        #expect(week.days.map(\.date) == ["2031-03-12", "2031-03-15"])
        #expect(week.days.map(\.eventIds) == [[tonight], [saturday]])
        // A week of a Monday-first locale.
        let french = try await events.calendar(
            viewer: ann, Ops.CalendarGet.Parameters(range: "week", timeZone: "UTC", locale: "fr-FR"))
        #expect(french.firstWeekday == 2 && french.from == "2031-03-10" && french.to == "2031-03-16")
        // At 10:00 UTC it is already Thursday at UTC+14.
        let east = try await events.calendar(
            viewer: ann, Ops.CalendarGet.Parameters(range: "day", timeZone: "Pacific/Kiritimati"))
        #expect(east.today == "2031-03-13" && east.from == "2031-03-13" && east.timeZone == "Pacific/Kiritimati")
        // The month and year around a given date; another user sees none of Ann's events.
        let month = try await events.calendar(
            viewer: ann, Ops.CalendarGet.Parameters(range: "month", date: "2031-04-02"))
        #expect(month.from == "2031-04-01" && month.to == "2031-04-30" && month.events.map(\.eventId) == [april])
        let year = try await events.calendar(viewer: bob, Ops.CalendarGet.Parameters(range: "year", timeZone: "UTC"))
        #expect(year.from == "2031-01-01" && year.events.isEmpty && year.days.isEmpty)
        // The clock moves: next week's calendar, and `today` with it.
        clock.advance(by: 7 * 86_400)
        let later = try await events.calendar(viewer: ann, Ops.CalendarGet.Parameters(range: "week", timeZone: "UTC"))
        #expect(later.today == "2031-03-19" && later.events.isEmpty)
        // At most `maxCalendarEvents`: the latest are left out.
        var small = CommunityConfiguration()
        small.maxCalendarEvents = 1
        let one = try await service(small).calendar(
            viewer: ann, Ops.CalendarGet.Parameters(range: "year", date: "2031-01-01", timeZone: "UTC"))
        #expect(one.events.map(\.eventId) == [tonight])

        await #expect(throws: CommunityError.badCalendarRange) {
            _ = try await events.calendar(viewer: ann, Ops.CalendarGet.Parameters(range: "decade"))
        }
        await #expect(throws: CommunityError.badDate) {
            _ = try await events.calendar(viewer: ann, Ops.CalendarGet.Parameters(range: "day", date: "2031-02-30"))
        }
        await #expect(throws: CommunityError.unknownTimeZone) {
            _ = try await events.calendar(viewer: ann, Ops.CalendarGet.Parameters(range: "day", timeZone: "Mars/Base"))
        }
        await #expect(throws: CommunityError.badLocale) {
            _ = try await events.calendar(viewer: ann, Ops.CalendarGet.Parameters(range: "day", locale: "1x"))
        }
    }
}
