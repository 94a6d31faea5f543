//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import Testing

/// The client library's community, event, calendar and course methods (`SwitchboardClient+Communities.swift`)
/// against a real server: every reply decodes into the protocol's types (`SwitchboardProtocol/Operations`).
@Suite("Client library: communities, events, calendar, courses", .serialized)
struct ClientCommunityTests {
    func code<T>(_ body: () async throws(SwitchboardClientError) -> T) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch {
            if case .server(let e) = error { return e.code }
            return "\(error)"
        }
    }

    @Test func aMemberFollowsACommunity() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let adminUser = try await registerUser(admin, "Ada")
        let bobUser = try await registerUser(bob, "Bob")
        try runSQL(database, "UPDATE users SET role = 'admin' WHERE id = \(adminUser.id)")
        let name = "Client garden \(UInt32.random(in: 0...UInt32.max))"

        let garden = try await admin.createCommunity(name: name, description: "green", category: "hobby")
        #expect(garden.name == name && garden.joined == false && garden.memberCount == 0)
        #expect(
            await code { () async throws(SwitchboardClientError) in try await bob.createCommunity(name: "nope \(name)")
            } == "forbidden")
        let joined = try await bob.joinCommunity(garden.communityId)
        #expect(joined.joined && joined.role == "member" && joined.memberCount == 1)
        #expect(
            await code { () async throws(SwitchboardClientError) in try await bob.joinCommunity(garden.communityId) }
                == "already_member")

        let start = Date().addingTimeInterval(3600)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let event = try await admin.createEvent(
            community: garden.communityId, title: "Planting", startsAt: f.string(from: start),
            endsAt: f.string(from: start.addingTimeInterval(3600)), timeZone: "Europe/Paris", capacity: 5)
        #expect(event.status == "upcoming" && event.capacity == 5 && event.participantCount == 0)
        let unread = try await bob.communityUnread()
        #expect(
            unread.unreadTotal >= 1
                && unread.communities.contains { $0.communityId == garden.communityId && $0.unread == 1 })
        let page = try await bob.communities(limit: 100)
        #expect(page.communities.first { $0.communityId == garden.communityId }?.unread == 1)
        let notes = try await bob.communityNotifications(garden.communityId)
        #expect(
            notes.notifications.first?.kind == "event.published" && notes.notifications.first?.eventId == event.eventId)
        let read = try await bob.readCommunity(garden.communityId)
        #expect(read.unread == 0)

        let listed = try await bob.events(community: garden.communityId)
        #expect(listed.events.map(\.eventId) == [event.eventId])
        let mine = try await bob.joinEvent(event.eventId)
        #expect(mine.joined && mine.participantCount == 1)
        let calendar = try await bob.calendar(
            range: "month", date: String(f.string(from: start).prefix(10)), timeZone: "UTC")
        #expect(calendar.range == "month" && calendar.events.map(\.eventId) == [event.eventId])
        #expect(calendar.days.contains { $0.eventIds.contains(event.eventId) })
        let dropped = try await bob.dropEvent(event.eventId)
        #expect(!dropped.joined && dropped.participantCount == 0)

        try await admin.setCoreMember(garden.communityId, userId: bobUser.id, core: true)
        let lesson = try await bob.createPost(community: garden.communityId, kind: "lesson", title: "Dig", body: "deep")
        #expect(lesson.kind == "lesson" && lesson.completed == false)
        let progress = try await bob.completeLesson(lesson.postId)
        #expect(progress.completed == 1 && progress.total == 1)
        let course = try await bob.course(community: garden.communityId)
        #expect(course.lessons.map(\.postId) == [lesson.postId] && course.lessons.first?.completed == true)
        let members = try await bob.communityMembers(garden.communityId)
        #expect(members.members.map(\.role) == ["core"])
        let quit = try await bob.quitCommunity(garden.communityId)
        #expect(quit.droppedEventIds.isEmpty)
        for client in [admin, bob] { await client.close() }
    }
}
