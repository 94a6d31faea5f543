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

/// `CommunityService` without sockets: administrator-only management checked before the rules, names and pictures,
/// membership and who hears which event, members-only content, archived communities, notifications and the unread
/// markers, and what quitting drops on a manual wall clock.
@Suite("Community service (the test database, a manual wall clock)")
struct CommunityServiceTests {
    let clock = ManualWallClock()

    func service() throws -> CommunityService {
        CommunityService(db: try EngineTestDatabase.shared.pool, limits: CommunityConfiguration(), now: clock.reading)
    }

    /// A name no other test uses.
    func unique(_ prefix: String) -> String { "\(prefix) \(UUID().uuidString.prefix(12))" }

    @Test func onlyAdministratorsManageCommunitiesAndTheirRoleComesFirst() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann) = (try await db.user("admin"), try await db.user("ann"))
        try await db.makeAdministrator(admin)
        let communities = try service()
        // A non-administrator is refused before its (invalid) name is looked at.
        await #expect(throws: CommunityError.administratorsOnly) {
            _ = try await communities.create(
                Caller(userId: ann), name: "", description: nil, category: nil, picture: nil)
        }
        let me = Caller(userId: admin)
        // Trimmed, then the text rule: a blank name is an empty one.
        await #expect(throws: CommunityError.invalidText("name is empty")) {
            _ = try await communities.create(me, name: "   ", description: nil, category: nil, picture: nil)
        }
        await #expect(throws: CommunityError.badPicture(maxBytes: 512)) {
            _ = try await communities.create(me, name: unique("P"), description: nil, category: nil, picture: "ftp://x")
        }
        await #expect(throws: CommunityError.self) {
            _ = try await communities.create(
                me, name: unique("C"), description: nil, category: String(repeating: "c", count: 41), picture: nil)
        }
        let name = unique("Garden")
        let created = try await communities.create(
            me, name: "  \(name)  ", description: "Plants", category: "hobby", picture: "https://example.com/g.png")
        #expect(created.community.name == name && created.community.memberCount == 0 && !created.community.joined)
        // Names are unique among live communities, whatever their case.
        await #expect(throws: CommunityError.nameTaken) {
            _ = try await communities.create(me, name: name.uppercased(), description: nil, category: nil, picture: nil)
        }
        let id = created.community.communityId
        for refused in [
            { _ = try await communities.archive(Caller(userId: ann), communityId: id) },
            { _ = try await communities.setCore(Caller(userId: ann), communityId: id, userId: ann, core: true) },
            {
                _ = try await communities.update(
                    Caller(userId: ann), communityId: id, name: nil, description: nil, category: nil, picture: nil)
            },
        ] as [@Sendable () async throws -> Void] {
            await #expect(throws: CommunityError.administratorsOnly) { try await refused() }
        }
        await #expect(throws: CommunityError.noSuchCommunity) {
            _ = try await communities.update(
                me, communityId: 9_000_000_000, name: nil, description: "x", category: nil, picture: nil)
        }
        // An empty picture removes it.
        let (updated, _) = try await communities.update(
            me, communityId: id, name: nil, description: nil, category: nil, picture: "")
        #expect(updated.community.picture == nil && updated.community.description == "Plants")
    }

    @Test func membershipAndWhoHearsWhich() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann, bob) = (try await db.user("admin"), try await db.user("ann"), try await db.user("bob"))
        try await db.makeAdministrator(admin)
        let communities = try service()
        let id = try await db.community(by: admin)
        let (joined, toAnn) = try await communities.join(Caller(userId: ann), communityId: id)
        #expect(joined.community.joined && joined.community.role == "member" && joined.community.memberCount == 1)
        #expect(toAnn.map(\.name) == ["community.joined"] && toAnn.first?.users == [ann])
        await #expect(throws: CommunityError.alreadyMember) {
            _ = try await communities.join(Caller(userId: ann), communityId: id)
        }
        _ = try await communities.join(Caller(userId: bob), communityId: id)
        // A change is told to every member.
        let (_, toMembers) = try await communities.update(
            Caller(userId: admin), communityId: id, name: nil, description: "New", category: nil, picture: nil)
        #expect(toMembers.map(\.name) == ["community.updated"] && Set(toMembers.first?.users ?? []) == [ann, bob])
        // A role change is told to that member, once.
        let role = try await communities.setCore(Caller(userId: admin), communityId: id, userId: bob, core: true)
        #expect(role.map(\.name) == ["community.role"] && role.first?.users == [bob])
        #expect((role.first?.event as? CommunityRoleEvent)?.role == "core")
        #expect(try await communities.setCore(Caller(userId: admin), communityId: id, userId: bob, core: true).isEmpty)
        await #expect(throws: CommunityError.noSuchMember) {
            _ = try await communities.setCore(Caller(userId: admin), communityId: id, userId: admin, core: true)
        }
        // Members page: the core member first.
        let members = try await communities.members(communityId: id, viewer: ann, limit: 1, cursor: nil)
        #expect(members.members.map(\.user.userId) == [bob])
        let rest = try await communities.members(communityId: id, viewer: ann, limit: 1, cursor: members.nextCursor)
        #expect(rest.members.map(\.user.userId) == [ann] && rest.nextCursor == nil)
        await #expect(throws: CommunityError.badCursor) {
            _ = try await communities.members(communityId: id, viewer: ann, limit: nil, cursor: "nonsense")
        }
        await #expect(throws: CommunityError.pageLimit(max: 200)) {
            _ = try await communities.members(communityId: id, viewer: ann, limit: 201, cursor: nil)
        }
    }

    @Test func quittingDropsTheEventsNotEndedOnTheClock() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann) = (try await db.user("admin"), try await db.user("ann"))
        try await db.makeAdministrator(admin)
        let communities = try service()
        let id = try await db.community(by: admin, members: [ann])
        let events = EventService(db: try db.pool, limits: CommunityConfiguration(), now: clock.reading)
        var eventIds: [Int64] = []
        for hours in [1.0, 10] {
            let start = clock.now.addingTimeInterval(hours * 3600)
            let draft = Ops.EventsCreate.Parameters(
                communityId: id, title: "E", startsAt: WireTimestamp.string(from: start),
                endsAt: WireTimestamp.string(from: start.addingTimeInterval(3600)), timeZone: "UTC")
            let eventId = try await events.create(Caller(userId: admin), draft).0.event.eventId
            _ = try await events.join(Caller(userId: ann), eventId: eventId)
            eventIds.append(eventId)
        }
        // The first has ended by now: Ann keeps her place in its history, and leaves the second.
        clock.advance(by: 3 * 3600)
        let (quit, told) = try await communities.quit(Caller(userId: ann), communityId: id)
        #expect(quit.droppedEventIds == [eventIds[1]])
        #expect(told.map(\.name) == ["community.left"] && told.first?.users == [ann])
        #expect((told.first?.event as? CommunityLeftEvent)?.droppedEventIds == [eventIds[1]])
        await #expect(throws: CommunityError.notAMember) {
            _ = try await communities.quit(Caller(userId: ann), communityId: id)
        }
        await #expect(throws: CommunityError.noSuchCommunity) {
            _ = try await communities.quit(Caller(userId: ann), communityId: 9_000_000_000)
        }
    }

    @Test func membersOnlyContentAndArchivedCommunities() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann, zed) = (try await db.user("admin"), try await db.user("ann"), try await db.user("zed"))
        try await db.makeAdministrator(admin)
        let communities = try service()
        let id = try await db.community(by: admin, members: [ann])
        // Everyone sees a live community; its content is its members' (and the administrators').
        #expect(try await communities.community(id, viewer: zed).community.communityId == id)
        await #expect(throws: CommunityError.membersOnly) {
            _ = try await communities.members(communityId: id, viewer: zed, limit: nil, cursor: nil)
        }
        await #expect(throws: CommunityError.membersOnly) {
            _ = try await communities.notifications(communityId: id, viewer: zed, beforeSeq: nil, limit: nil)
        }
        await #expect(throws: CommunityError.notAMember) {
            _ = try await communities.read(Caller(userId: zed), communityId: id, seq: nil)
        }
        _ = try await communities.members(communityId: id, viewer: admin, limit: nil, cursor: nil)

        let archived = try await communities.archive(Caller(userId: admin), communityId: id)
        #expect(archived.map(\.name) == ["community.archived"] && archived.first?.users == [ann])
        // Archived: hidden from strangers, kept for its members and the administrators, closed to new members.
        await #expect(throws: CommunityError.noSuchCommunity) { _ = try await communities.community(id, viewer: zed) }
        #expect(try await communities.community(id, viewer: ann).community.archived)
        #expect(try await communities.community(id, viewer: admin).community.archived)
        await #expect(throws: CommunityError.noSuchCommunity) {
            _ = try await communities.join(Caller(userId: zed), communityId: id)
        }
        await #expect(throws: CommunityError.noSuchCommunity) {
            _ = try await communities.members(communityId: id, viewer: zed, limit: nil, cursor: nil)
        }
        await #expect(throws: CommunityError.noSuchCommunity) {
            _ = try await communities.read(Caller(userId: zed), communityId: id, seq: nil)
        }
        let annsList = try await communities.list(viewer: ann, limit: 100, cursor: nil)
        // Joined communities come first.
        #expect(annsList.communities.first?.communityId == id)
        var seen: [Int64] = []
        var cursor: String? = nil
        repeat {
            let page = try await communities.list(viewer: zed, limit: 100, cursor: cursor)
            seen += page.communities.map(\.communityId)
            cursor = page.nextCursor
        } while cursor != nil
        #expect(!seen.contains(id))
        await #expect(throws: CommunityError.badCursor) {
            _ = try await communities.list(viewer: zed, limit: nil, cursor: "%%%")
        }
    }

    @Test func notificationsAndUnreadMarkers() async throws {
        let db = EngineTestDatabase.shared
        let (admin, ann) = (try await db.user("admin"), try await db.user("ann"))
        try await db.makeAdministrator(admin)
        let communities = try service()
        let id = try await db.community(by: admin, members: [ann])
        for title in ["one", "two", "three"] {
            _ = try await db.pool.write { db in
                try CommunityNotifications.publish(
                    db, communityId: id, kind: "announcement", actorId: admin, title: title)
            }
        }
        let unread = try await communities.unread(viewer: ann)
        #expect(unread.communities.first { $0.communityId == id }?.unread == 3)
        let page = try await communities.notifications(communityId: id, viewer: ann, beforeSeq: nil, limit: 2)
        #expect(page.notifications.map(\.title) == ["three", "two"] && page.readSeq == 0 && page.nextBeforeSeq == 2)
        let older = try await communities.notifications(
            communityId: id, viewer: ann, beforeSeq: page.nextBeforeSeq, limit: 2)
        #expect(older.notifications.map(\.title) == ["one"] && older.nextBeforeSeq == nil)
        await #expect(throws: CommunityError.badBeforeSeq) {
            _ = try await communities.notifications(communityId: id, viewer: ann, beforeSeq: 0, limit: nil)
        }
        // Reading moves the marker forward, never back, and tells the reader's devices.
        let (read, told) = try await communities.read(Caller(userId: ann), communityId: id, seq: 2)
        #expect(read.readSeq == 2 && read.unread == 1)
        #expect(told.map(\.name) == ["community.read"] && told.first?.users == [ann])
        #expect(try await communities.read(Caller(userId: ann), communityId: id, seq: 1).0.readSeq == 2)
        #expect(try await communities.read(Caller(userId: ann), communityId: id, seq: nil).0.unread == 0)
        await #expect(throws: CommunityError.badSeq) {
            _ = try await communities.read(Caller(userId: ann), communityId: id, seq: -1)
        }
        // The publisher's own rule: a kind it does not know is a bug, answered `internal`.
        await #expect(throws: CommunityError.unknownNotificationKind("poll")) {
            _ = try await db.pool.write(as: CommunityError.self) { db in
                try CommunityNotifications.publish(db, communityId: id, kind: "poll", actorId: admin, title: "x")
            }
        }
        #expect(CommunityError.unknownNotificationKind("poll").wire.code == .internal)
    }
}
