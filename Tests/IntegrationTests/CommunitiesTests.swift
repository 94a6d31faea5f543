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

/// Runs `body` on a connection of the test database (blocking the test's thread) and returns its value.
private func withDatabase<T: Sendable>(
    _ database: DatabaseRuntime, _ body: @escaping @Sendable (PostgresConnection) throws -> T
) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = Unchecked(NSMutableArray())
    database.pool.withConnection(
        on: DispatchQueue(label: "test.sql"), { db in try db.transaction { db in try body(db) } },
        completion: { r in
            switch r {
            case .success(let value): box.value.add(Unchecked(value))
            case .failure(let error): box.value.add("\(error)")
            }
            done.signal()
        })
    done.wait()
    if let value = box.value.firstObject as? Unchecked<T> { return value.value }
    throw TestSQLError(description: "\(box.value.firstObject ?? "no result")")
}

private func list(_ value: Any?) -> [[String: Any]] { value as? [[String: Any]] ?? [] }

/// Makes `user` an administrator (the role column, as `switchboard admin grant` sets it).
private func makeAdmin(_ database: DatabaseRuntime, _ user: TestUser) throws {
    try runSQL(database, "UPDATE users SET role = 'admin' WHERE id = \(user.id)")
}

/// A fresh name prefix: the suites share one database, and live community names are unique.
private func prefix() -> String { "t\(UInt32.random(in: 0...UInt32.max)) " }

/// Creates a community as `admin`; its id.
private func create(_ admin: TestUser, _ name: String) throws -> Int {
    let reply = try admin.client.call("communities.create", ["name": name, "category": "test"])
    return try #require((ok(reply)?["community"] as? [String: Any])?["community_id"] as? Int, "\(reply)")
}

@Suite("Communities over the real protocol", .serialized)
struct CommunitiesTests {
    /// Joined first, then the others; each part by name, case- and accent-insensitively; pages neither repeat nor
    /// skip. The names share a random prefix, and the list is filtered to them (other suites' communities are in
    /// the same database).
    @Test func listOrderAndPaging() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        try makeAdmin(database, admin)
        let ann = try makeUser(port, "ann")
        let p = prefix()
        var ids: [String: Int] = [:]
        for name in ["Fran", "émile", "Dave", "bob", "Zoé", "Alice", "carl", "Émilie"] {
            ids[name] = try create(admin, p + name)
        }
        for name in ["Zoé", "carl"] {
            #expect(ok(try ann.client.call("communities.join", ["community_id": ids[name]!])) != nil)
        }
        // Joining twice is refused.
        #expect(errorCode(try ann.client.call("communities.join", ["community_id": ids["carl"]!])) == "already_member")

        // Pages of 2 through everything; keep ours.
        var seen: [Int] = []
        var cursor: String?
        for _ in 0..<10_000 {
            var params: [String: Any] = ["limit": 2]
            if let cursor { params["cursor"] = cursor }
            let page = try #require(ok(try ann.client.call("communities.list", params)))
            seen += list(page["communities"]).compactMap { $0["community_id"] as? Int }
            guard let next = page["next_cursor"] as? String else { break }
            cursor = next
        }
        #expect(Set(seen).count == seen.count, "a community was listed twice")
        let ours = seen.filter { ids.values.contains($0) }
        let names = ours.map { id in ids.first { $0.value == id }!.key }
        #expect(names == ["carl", "Zoé", "Alice", "bob", "Dave", "émile", "Émilie", "Fran"])
        // The joined ones come before every other community, and carry the member's fields.
        let joinedCount = try #require(seen.firstIndex(of: ids["Alice"]!))
        #expect(seen.prefix(joinedCount).contains(ids["carl"]!) && seen.prefix(joinedCount).contains(ids["Zoé"]!))
        let whole = list(ok(try ann.client.call("communities.list", ["limit": 100]))?["communities"])
        let carl = try #require(whole.first { $0["community_id"] as? Int == ids["carl"] })
        #expect(
            carl["joined"] as? Bool == true && carl["role"] as? String == "member" && carl["member_count"] as? Int == 1)
        let alice = try #require(whole.first { $0["community_id"] as? Int == ids["Alice"] })
        #expect(alice["joined"] as? Bool == false && alice["role"] is NSNull && alice["picture"] is NSNull)
        // A cursor the server did not make is refused.
        #expect(errorCode(try ann.client.call("communities.list", ["cursor": "%%%"])) == "bad_request")
    }

    /// Quitting drops the participations in events that have not ended (counts too) and keeps ended ones.
    @Test func quitDropsUpcomingParticipationsOnly() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        try makeAdmin(database, admin)
        let ann = try makeUser(port, "ann")
        let community = try create(admin, prefix() + "Walks")
        #expect(ok(try ann.client.call("communities.join", ["community_id": community])) != nil)
        let annId = Int64(ann.id)
        // Events (another part's ops) made in SQL: one ended, one ongoing, one upcoming; Ann in each.
        let eventIds: [Int64] = try withDatabase(database) { db in
            var ids: [Int64] = []
            for (start, end) in [("-2 days", "-1 day"), ("-1 hour", "1 hour"), ("1 day", "2 days")] {
                let id = try db.execute(
                    cached: """
                        INSERT INTO community_events
                            (community_id, title, starts_at, ends_at, time_zone, participant_count)
                        VALUES ($1, 'e', now() + $2::interval, now() + $3::interval, 'Europe/Paris', 1) RETURNING id
                        """, [.int(Int64(community)), .text(start), .text(end)]
                ).decodeFirst(Int64.self)!
                try db.execute(
                    cached: "INSERT INTO event_participants (event_id, user_id) VALUES ($1, $2)",
                    [.int(id), .int(annId)])
                ids.append(id)
            }
            return ids
        }
        let quit = try #require(ok(try ann.client.call("communities.quit", ["community_id": community])))
        #expect((quit["dropped_event_ids"] as? [Int])?.map(Int64.init) == [eventIds[1], eventIds[2]])
        let left = try ann.client.event("community.left")
        #expect(left["community_id"] as? Int == community)
        let state: [[Int64]] = try withDatabase(database) { db in
            try db.execute(
                cached: """
                    SELECT e.id, e.participant_count,
                           (SELECT count(*) FROM event_participants p WHERE p.event_id = e.id)
                    FROM community_events e WHERE e.community_id = $1 ORDER BY e.id
                    """, [.int(Int64(community))]
            ).map { [try $0.decode(column: 0), try $0.decode(Int64.self, column: 1), try $0.decode(column: 2)] }
        }
        #expect(state == [[eventIds[0], 1, 1], [eventIds[1], 0, 0], [eventIds[2], 0, 0]])
        let after = try #require(
            ok(try ann.client.call("communities.get", ["community_id": community]))?["community"] as? [String: Any])
        #expect(after["joined"] as? Bool == false && after["member_count"] as? Int == 0)
        // Not a member any more: quitting again and reading members-only content are refused.
        #expect(errorCode(try ann.client.call("communities.quit", ["community_id": community])) == "forbidden")
        #expect(errorCode(try ann.client.call("communities.members", ["community_id": community])) == "forbidden")
        #expect(errorCode(try ann.client.call("communities.quit", ["community_id": 9_000_000_000])) == "not_found")
    }

    /// A notification makes one unread on both of a user's devices; reading on one tells the other.
    @Test func unreadMarkersAcrossTwoDevices() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        try makeAdmin(database, admin)
        let ann = try makeUser(port, "ann")
        let annB = try secondDevice(port, ann, "ann-2")
        let community = try create(admin, prefix() + "Choir")
        // The admin publishes before Ann joins: nothing is unread on joining.
        let adminId = Int64(admin.id)
        _ = try withDatabase(database) { db in
            try CommunityNotifications.publish(
                db, communityId: Int64(community), kind: "announcement", eventId: nil, postId: nil, actorId: adminId,
                title: "before")
        }
        let joined = try #require(
            ok(try ann.client.call("communities.join", ["community_id": community]))?["community"] as? [String: Any])
        #expect(joined["unread"] as? Int == 0)
        #expect(
            (try annB.event("community.joined")["community"] as? [String: Any])?["community_id"] as? Int == community)
        let notification = try withDatabase(database) { db in
            try CommunityNotifications.publish(
                db, communityId: Int64(community), kind: "event.published", eventId: nil, postId: nil, actorId: adminId,
                title: "Rehearsal")
        }
        #expect(notification.seq == 2 && notification.actor?.userId == adminId)
        // After the commit the server pushes it to the members' devices (what events and courses do).
        let recipients = try withDatabase(database) { db in
            try CommunityRepository.memberIds(db, communityId: Int64(community))
        }
        #expect(recipients == [Int64(ann.id)])
        let notice = CommunityService.notificationEvent(notification, to: recipients)
        try #require(server.services).deliveries.send(notice.encoded(), toUsers: notice.users)
        for device in [ann.client, annB] {
            let pushed = try #require(try device.event("community.notification")["notification"] as? [String: Any])
            #expect(
                pushed["seq"] as? Int == 2 && pushed["title"] as? String == "Rehearsal"
                    && pushed["kind"] as? String == "event.published")
            #expect(pushed["event_id"] is NSNull && (pushed["actor"] as? [String: Any])?["user_id"] as? Int == admin.id)
        }
        for device in [ann.client, annB] {
            let unread = try #require(ok(try device.call("communities.unread")))
            #expect(unread["unread_total"] as? Int == 1)
            #expect(list(unread["communities"]).first?["community_id"] as? Int == community)
        }
        let page = try #require(
            ok(try ann.client.call("communities.notifications", ["community_id": community, "limit": 1])))
        #expect(list(page["notifications"]).map { $0["title"] as? String } == ["Rehearsal"])
        #expect(page["read_seq"] as? Int == 1 && page["next_before_seq"] as? Int == 2)
        // Device A reads; device B is told and its count is 0.
        let read = try #require(ok(try ann.client.call("communities.read", ["community_id": community])))
        #expect(read["read_seq"] as? Int == 2 && read["unread"] as? Int == 0 && read["unread_total"] as? Int == 0)
        let told = try annB.event("community.read")
        #expect(
            told["community_id"] as? Int == community && told["read_seq"] as? Int == 2
                && told["unread_total"] as? Int == 0)
        #expect(ok(try annB.call("communities.unread"))?["unread_total"] as? Int == 0)
        // The marker never moves back.
        #expect(ok(try annB.call("communities.read", ["community_id": community, "seq": 1]))?["read_seq"] as? Int == 2)
        // The actor's own publication is not unread to it when it had read everything.
        #expect(ok(try admin.client.call("communities.join", ["community_id": community])) != nil)
        _ = try withDatabase(database) { db in
            try CommunityNotifications.publish(
                db, communityId: Int64(community), kind: "lesson", actorId: adminId, title: "mine")
        }
        #expect(ok(try admin.client.call("communities.unread"))?["unread_total"] as? Int == 0)
        #expect(ok(try ann.client.call("communities.unread"))?["unread_total"] as? Int == 1)
        let members = list(ok(try ann.client.call("communities.members", ["community_id": community]))?["members"])
        #expect(Set(members.compactMap { ($0["user"] as? [String: Any])?["user_id"] as? Int }) == [ann.id, admin.id])
    }

    /// Every refusal: non-admin create, update, archive, core; non-member reading members-only content; archived
    /// communities hidden from non-members but readable by members.
    @Test func refusals() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        try makeAdmin(database, admin)
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let name = prefix() + "Chess"
        let community = try create(admin, name)
        #expect(errorCode(try admin.client.call("communities.create", ["name": name.uppercased()])) == "bad_request")
        #expect(errorCode(try ann.client.call("communities.create", ["name": prefix() + "Mine"])) == "forbidden")
        #expect(
            errorCode(try ann.client.call("communities.update", ["community_id": community, "name": "x"]))
                == "forbidden")
        #expect(errorCode(try ann.client.call("communities.archive", ["community_id": community])) == "forbidden")
        #expect(ok(try ann.client.call("communities.join", ["community_id": community])) != nil)
        #expect(
            errorCode(
                try ann.client.call("communities.core", ["community_id": community, "user_id": ann.id, "core": true]))
                == "forbidden")
        #expect(
            errorCode(
                try admin.client.call("communities.core", ["community_id": community, "user_id": bob.id, "core": true]))
                == "not_found")
        #expect(
            ok(try admin.client.call("communities.core", ["community_id": community, "user_id": ann.id, "core": true]))
                != nil)
        #expect(try ann.client.event("community.role")["role"] as? String == "core")
        // A non-member sees the public fields but not the members-only content.
        #expect(ok(try bob.client.call("communities.get", ["community_id": community])) != nil)
        #expect(errorCode(try bob.client.call("communities.members", ["community_id": community])) == "forbidden")
        #expect(errorCode(try bob.client.call("communities.notifications", ["community_id": community])) == "forbidden")
        #expect(errorCode(try bob.client.call("communities.read", ["community_id": community])) == "forbidden")
        // An update reaches the members without per-user fields.
        let updated = try #require(
            ok(
                try admin.client.call(
                    "communities.update",
                    ["community_id": community, "description": "Saturdays", "picture": "https://x.test/a.png"])))
        #expect((updated["community"] as? [String: Any])?["picture"] as? String == "https://x.test/a.png")
        let pushed = try #require(try ann.client.event("community.updated")["community"] as? [String: Any])
        #expect(
            pushed["description"] as? String == "Saturdays" && pushed["joined"] as? Bool == false
                && pushed["unread"] as? Int == 0)
        // Archived: members keep reading it, others get not_found and do not see it listed; joining is refused.
        #expect(ok(try admin.client.call("communities.archive", ["community_id": community])) != nil)
        #expect(try ann.client.event("community.archived")["community_id"] as? Int == community)
        #expect(errorCode(try bob.client.call("communities.get", ["community_id": community])) == "not_found")
        #expect(errorCode(try bob.client.call("communities.join", ["community_id": community])) == "not_found")
        #expect(errorCode(try bob.client.call("communities.members", ["community_id": community])) == "not_found")
        #expect(
            !list(ok(try bob.client.call("communities.list", ["limit": 100]))?["communities"]).contains {
                $0["community_id"] as? Int == community
            })
        let kept = try #require(
            ok(try ann.client.call("communities.get", ["community_id": community]))?["community"] as? [String: Any])
        #expect(kept["archived"] as? Bool == true && kept["role"] as? String == "core")
        #expect(ok(try ann.client.call("communities.members", ["community_id": community])) != nil)
        // Its name is free again.
        #expect(ok(try admin.client.call("communities.create", ["name": name])) != nil)
    }

    /// Account deletion removes memberships and participations and decrements the counts.
    @Test func deletionDecrementsCounts() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        try makeAdmin(database, admin)
        let ann = try makeUser(port, "ann")
        let community = try create(admin, prefix() + "Garden")
        #expect(ok(try ann.client.call("communities.join", ["community_id": community])) != nil)
        let annId = Int64(ann.id)
        try withDatabase(database) { db in
            let id = try db.execute(
                cached: """
                    INSERT INTO community_events (community_id, title, starts_at, ends_at, time_zone, participant_count)
                    VALUES ($1, 'e', now() + interval '1 day', now() + interval '2 days', 'UTC', 1) RETURNING id
                    """, [.int(Int64(community))]
            ).decodeFirst(Int64.self)!
            try db.execute(
                cached: "INSERT INTO event_participants (event_id, user_id) VALUES ($1, $2)", [.int(id), .int(annId)])
        }
        #expect(ok(try ann.client.call("account.delete", ["password": ann.password])) != nil)
        let settled = waitUntil(timeout: 30) {
            let counts = try? withDatabase(database) { db in
                try db.execute(
                    cached: """
                        SELECT c.member_count,
                               (SELECT COALESCE(SUM(participant_count), 0)::bigint FROM community_events
                                WHERE community_id = c.id),
                               (SELECT count(*) FROM community_members WHERE user_id = $2)
                        FROM communities c WHERE c.id = $1
                        """, [.int(Int64(community)), .int(annId)]
                ).map {
                    [
                        try $0.decode(Int64.self, column: 0), try $0.decode(Int64.self, column: 1),
                        try $0.decode(Int64.self, column: 2),
                    ]
                }.first
            }
            return counts == [0, 0, 0]
        }
        #expect(settled, "the deleted account's membership and participation are gone, counts decremented")
    }
}
