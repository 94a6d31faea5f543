//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import SwitchboardStore
import Testing

/// One integer from a query on the test database.
private func integer(_ database: DatabaseRuntime, _ sql: String, _ params: [PostgresData?] = []) throws -> Int {
    try database.pool.connectionForTests { db in Int(try db.execute(cached: sql, params).first?.string(0) ?? "-1") ?? -1
    }
}

/// Makes `user` an administrator (the role `switchboard admin grant` sets).
private func makeAdministrator(_ database: DatabaseRuntime, _ user: TestUser) throws {
    try runSQL(database, "UPDATE users SET role = 'admin' WHERE id = \(user.id)")
}

/// A community created by `admin` with `communities.create`, joined by `members` with `communities.join`. The name
/// gets a random suffix: live names are unique, and the test database outlives a run.
private func community(_ admin: TestUser, _ name: String, members: [TestUser]) throws -> Int {
    let made = try #require(
        ok(try admin.client.call("communities.create", ["name": "\(name) \(UUID().uuidString.prefix(8))"])))
    let id = try #require((made["community"] as? [String: Any])?["community_id"] as? Int)
    for member in members { try joinCommunity(member, id) }
    return id
}

private func joinCommunity(_ user: TestUser, _ id: Int) throws {
    _ = try #require(ok(try user.client.call("communities.join", ["community_id": id])))
}

/// A wire timestamp `seconds` from now.
private func at(_ seconds: Double, from base: Date = Date()) -> String {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return f.string(from: base.addingTimeInterval(seconds))
}

private func event(_ reply: [String: Any]) -> [String: Any]? { ok(reply)?["event"] as? [String: Any] }

private func message(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["message"] as? String }

private func create(
    _ admin: TestUser, _ communityId: Int, _ title: String, starts: String, ends: String, extra: [String: Any] = [:]
) throws -> Int {
    var params: [String: Any] = [
        "community_id": communityId, "title": title, "starts_at": starts, "ends_at": ends, "time_zone": "Europe/Paris",
    ]
    params.merge(extra) { $1 }
    let reply = try admin.client.call("events.create", params)
    return try #require(event(reply)?["event_id"] as? Int, "\(reply)")
}

extension ProtocolClient {
    /// Waits for the next `community.notification` and returns its notification.
    func notification() throws -> [String: Any] {
        try event("community.notification")["notification"] as? [String: Any] ?? [:]
    }
}

@Suite("Community events and calendars over the real protocol", .serialized)
struct EventsTests {
    @Test func publishJoinDropChangeCancelAndEveryRefusal() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let zed = try makeUser(port, "zed")
        try makeAdministrator(database, admin)
        let ann2 = try secondDevice(port, ann, "ann-2")
        let club = try community(admin, "Choir club", members: [ann, bob])
        let starts = at(86_400)
        let ends = at(86_400 + 7200)

        // Publishing is for administrators only; nothing is written.
        for user in [ann, zed] {
            let refused = try user.client.call(
                "events.create",
                [
                    "community_id": club, "title": "Mine", "starts_at": starts, "ends_at": ends,
                    "time_zone": "Europe/Paris",
                ])
            #expect(errorCode(refused) == "forbidden")
        }
        #expect(
            try integer(database, "SELECT count(*) FROM community_events WHERE community_id = $1", [.int(Int64(club))])
                == 0)
        #expect(
            errorCode(
                try admin.client.call(
                    "events.create",
                    [
                        "community_id": 9_000_000_000, "title": "x", "starts_at": starts, "ends_at": ends,
                        "time_zone": "UTC",
                    ])) == "not_found")
        // Invalid fields.
        let bad: [[String: Any]] = [
            ["title": "", "starts_at": starts, "ends_at": ends, "time_zone": "UTC"],
            ["title": "x", "starts_at": ends, "ends_at": starts, "time_zone": "UTC"],
            ["title": "x", "starts_at": starts, "ends_at": at(86_400 * 33), "time_zone": "UTC"],
            ["title": "x", "starts_at": starts, "ends_at": ends, "time_zone": "Mars/Olympus"],
            ["title": "x", "starts_at": "tomorrow", "ends_at": ends, "time_zone": "UTC"],
            ["title": "x", "starts_at": starts, "ends_at": ends, "time_zone": "UTC", "capacity": 0],
        ]
        for fields in bad {
            var params = fields
            params["community_id"] = club
            #expect(errorCode(try admin.client.call("events.create", params)) == "bad_request", "\(fields)")
        }
        #expect(
            message(
                try admin.client.call(
                    "events.create",
                    [
                        "community_id": club, "title": "x", "starts_at": starts, "ends_at": ends,
                        "time_zone": "Nowhere/City",
                    ]))
                == "unknown time zone")

        // Published: every member's device is told (the administrator is not a member).
        let published = try #require(
            event(
                try admin.client.call(
                    "events.create",
                    [
                        "community_id": club, "title": "Rehearsal", "place": "Hall", "starts_at": starts,
                        "ends_at": ends, "time_zone": "Europe/Paris", "capacity": 2,
                    ])))
        let eventId = try #require(published["event_id"] as? Int)
        #expect(published["status"] as? String == "upcoming")
        #expect(published["capacity"] as? Int == 2)
        #expect(published["participant_count"] as? Int == 0)
        #expect(published["version"] as? Int == 1)
        #expect(published["starts_at"] as? String == starts)
        for client in [ann.client, ann2, bob.client] {
            let n = try client.notification()
            #expect(n["kind"] as? String == "event.published")
            #expect(n["event_id"] as? Int == eventId)
            #expect(n["title"] as? String == "Rehearsal")
            #expect(n["community_id"] as? Int == club)
        }
        // Barrier: the request pushed the notification before it answered.
        #expect(try zed.client.noEventBeforeBarrier("community.notification"))

        // A non-member reads nothing; an unknown id is not found; the administrator reads without being a member.
        for (op, params) in [
            ("events.get", ["event_id": eventId]), ("events.list", ["community_id": club]),
            ("events.participants", ["event_id": eventId]),
            ("events.join", ["event_id": eventId]),
        ] as [(String, [String: Any])] {
            let reply = try zed.client.call(op, params)
            #expect(errorCode(reply) == "forbidden", "\(op)")
            #expect(reply["ok"] == nil)
        }
        #expect(errorCode(try zed.client.call("events.drop", ["event_id": eventId])) == "not_found")
        #expect(errorCode(try ann.client.call("events.get", ["event_id": 9_000_000_000])) == "not_found")
        #expect(event(try admin.client.call("events.get", ["event_id": eventId]))?["title"] as? String == "Rehearsal")
        // Administrators who are not members may not join.
        #expect(errorCode(try admin.client.call("events.join", ["event_id": eventId])) == "forbidden")

        // Join: the reply and every device of the joiner; joining twice refused.
        let joined = try #require(event(try ann.client.call("events.join", ["event_id": eventId])))
        #expect(joined["joined"] as? Bool == true)
        #expect(joined["participant_count"] as? Int == 1)
        #expect((try ann2.event("event.joined")["event"] as? [String: Any])?["event_id"] as? Int == eventId)
        #expect(errorCode(try ann.client.call("events.join", ["event_id": eventId])) == "already_joined")
        #expect(event(try bob.client.call("events.get", ["event_id": eventId]))?["joined"] as? Bool == false)
        let participants = try #require(ok(try bob.client.call("events.participants", ["event_id": eventId])))
        #expect((participants["participants"] as? [[String: Any]])?.map { $0["user_id"] as? Int } == [ann.id])

        // Drop, and drop again.
        let dropped = try #require(event(try ann.client.call("events.drop", ["event_id": eventId])))
        #expect(dropped["joined"] as? Bool == false)
        #expect(dropped["participant_count"] as? Int == 0)
        #expect(try ann2.event("event.dropped")["event_id"] as? Int == eventId)
        #expect(errorCode(try ann.client.call("events.drop", ["event_id": eventId])) == "not_joined")

        // Full: capacity 2.
        _ = try #require(event(try ann.client.call("events.join", ["event_id": eventId])))
        _ = try #require(event(try bob.client.call("events.join", ["event_id": eventId])))
        let carl = try makeUser(port, "carl")
        try joinCommunity(carl, club)
        #expect(errorCode(try carl.client.call("events.join", ["event_id": eventId])) == "event_full")

        // Changed: version + 1, members told; capacity cannot go below the participants; null removes it.
        #expect(
            errorCode(try admin.client.call("events.update", ["event_id": eventId, "capacity": 1])) == "bad_request")
        #expect(errorCode(try ann.client.call("events.update", ["event_id": eventId, "title": "Mine"])) == "forbidden")
        let changed = try #require(
            event(
                try admin.client.call(
                    "events.update", ["event_id": eventId, "title": "Rehearsal (hall B)", "capacity": NSNull()])))
        #expect(changed["version"] as? Int == 2)
        #expect(changed["capacity"] is NSNull)
        #expect(changed["place"] as? String == "Hall")
        for client in [ann.client, ann2, bob.client, carl.client] {
            let n = try client.notification()
            #expect(n["kind"] as? String == "event.changed")
            #expect(n["title"] as? String == "Rehearsal (hall B)")
        }
        _ = try #require(event(try carl.client.call("events.join", ["event_id": eventId])))

        // Cancelled: every member's device told, participants kept, no more joins or changes.
        let cancelled = try #require(event(try admin.client.call("events.cancel", ["event_id": eventId])))
        #expect(cancelled["status"] as? String == "cancelled")
        #expect(cancelled["participant_count"] as? Int == 3)
        for client in [ann.client, ann2, bob.client, carl.client] {
            let n = try client.notification()
            #expect(n["kind"] as? String == "event.cancelled")
            #expect(n["event_id"] as? Int == eventId)
        }
        #expect(errorCode(try ann.client.call("events.drop", ["event_id": eventId])) == nil)
        #expect(errorCode(try ann.client.call("events.join", ["event_id": eventId])) == "invalid_state")
        #expect(
            errorCode(try admin.client.call("events.update", ["event_id": eventId, "title": "again"]))
                == "invalid_state")
        #expect(errorCode(try admin.client.call("events.cancel", ["event_id": eventId])) == "invalid_state")
        // The notifications are stored, newest first.
        let stored = try #require(ok(try bob.client.call("communities.notifications", ["community_id": club])))
        let kinds = (stored["notifications"] as? [[String: Any]] ?? []).compactMap { $0["kind"] as? String }
        #expect(kinds == ["event.cancelled", "event.changed", "event.published"])
    }

    @Test func endedEventsAreRefusedAndTheListSplitsUpcomingFromPast() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        let ann = try makeUser(port, "ann")
        try makeAdministrator(database, admin)
        let club = try community(admin, "Walkers", members: [ann])
        // Administrators may record an event whose times have passed (docs/protocol.md).
        let past = try create(admin, club, "Yesterday's walk", starts: at(-86_400 - 3600), ends: at(-86_400))
        let join = try ann.client.call("events.join", ["event_id": past])
        #expect(errorCode(join) == "event_ended")
        #expect(message(join) == "event has already ended")
        #expect(errorCode(try ann.client.call("events.drop", ["event_id": past])) == "event_ended")
        #expect(errorCode(try admin.client.call("events.update", ["event_id": past, "title": "x"])) == "invalid_state")
        #expect(event(try ann.client.call("events.get", ["event_id": past]))?["status"] as? String == "ended")
        // An event that ends while joined: made to end by SQL; dropping it is refused too.
        let soon = try create(admin, club, "Now", starts: at(-60), ends: at(3600))
        #expect(event(try ann.client.call("events.join", ["event_id": soon]))?["status"] as? String == "ongoing")
        try runSQL(database, "UPDATE community_events SET ends_at = now() - interval '1 second' WHERE id = \(soon)")
        #expect(errorCode(try ann.client.call("events.drop", ["event_id": soon])) == "event_ended")

        // Upcoming by start, in pages; past latest first.
        var upcoming: [Int] = []
        for day in [3, 1, 2] {
            upcoming.append(
                try create(
                    admin, club, "Walk \(day)", starts: at(Double(day) * 86_400), ends: at(Double(day) * 86_400 + 3600))
            )
        }
        let first = try #require(ok(try ann.client.call("events.list", ["community_id": club, "limit": 2])))
        #expect((first["events"] as? [[String: Any]])?.map { $0["event_id"] as? Int } == [upcoming[1], upcoming[2]])
        let cursor = try #require(first["next_cursor"] as? String)
        let second = try #require(
            ok(try ann.client.call("events.list", ["community_id": club, "limit": 2, "cursor": cursor])))
        #expect((second["events"] as? [[String: Any]])?.map { $0["event_id"] as? Int } == [upcoming[0]])
        #expect(second["next_cursor"] is NSNull)
        let pastPage = try #require(
            ok(try ann.client.call("events.list", ["community_id": club, "direction": "past"])))
        #expect((pastPage["events"] as? [[String: Any]])?.map { $0["event_id"] as? Int } == [soon, past])
        #expect(
            errorCode(try ann.client.call("events.list", ["community_id": club, "cursor": "nonsense"])) == "bad_request"
        )
        #expect(
            errorCode(try ann.client.call("events.list", ["community_id": club, "direction": "sideways"]))
                == "bad_request")
        #expect(errorCode(try ann.client.call("events.list", ["community_id": club, "limit": 0])) == "bad_request")
    }

    @Test func twentyConcurrentJoinsOfAnEventOfFiveSeatsLetExactlyFiveIn() throws {
        let (server, port, database) = try startProtocolServer { $0.databasePoolSize = 4 }
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        try makeAdministrator(database, admin)
        var members: [TestUser] = []
        for i in 0..<20 { members.append(try makeUser(port, "m\(i)")) }
        let club = try community(admin, "Tight room", members: members)
        let eventId = try create(
            admin, club, "Five seats", starts: at(86_400), ends: at(90_000), extra: ["capacity": 5])
        // Every request is on the wire before any reply is read.
        let ids = try members.map { try $0.client.send("events.join", ["event_id": eventId]) }
        var codes: [String] = []
        for (member, id) in zip(members, ids) {
            let reply = try member.client.reply(id)
            codes.append(errorCode(reply) ?? (ok(reply) != nil ? "ok" : "?"))
        }
        #expect(codes.filter { $0 == "ok" }.count == 5)
        #expect(codes.filter { $0 == "event_full" }.count == 15)
        #expect(
            try integer(
                database, "SELECT participant_count FROM community_events WHERE id = $1", [.int(Int64(eventId))]) == 5)
        #expect(
            try integer(database, "SELECT count(*) FROM event_participants WHERE event_id = $1", [.int(Int64(eventId))])
                == 5)
    }

    @Test func theCalendarShowsJoinedEventsOnlyAndQuittingRemovesUpcomingOnes() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        let ann = try makeUser(port, "ann")
        try makeAdministrator(database, admin)
        let club = try community(admin, "Evening club", members: [ann])
        // Fixed instants in a future month: 2030-03 in Paris (the change to summer time is on Sunday 31 March).
        // 20:00-00:30 in Paris.
        let dinner = try create(
            admin, club, "Dinner", starts: "2030-03-09T19:00:00.000Z", ends: "2030-03-09T23:30:00.000Z")
        // 21:00-04:00 (summer time).
        let concert = try create(
            admin, club, "Concert", starts: "2030-03-30T20:00:00.000Z", ends: "2030-03-31T02:00:00.000Z")
        let skipped = try create(
            admin, club, "Not joined", starts: "2030-03-12T10:00:00.000Z", ends: "2030-03-12T11:00:00.000Z")
        let april = try create(
            admin, club, "April", starts: "2030-04-02T10:00:00.000Z", ends: "2030-04-02T11:00:00.000Z")
        for id in [dinner, concert, april] {
            _ = try #require(event(try ann.client.call("events.join", ["event_id": id])))
        }
        _ = try #require(ok(try admin.client.call("events.cancel", ["event_id": concert])))

        let month = try #require(
            ok(
                try ann.client.call(
                    "calendar.get",
                    ["range": "month", "date": "2030-03-15", "time_zone": "Europe/Paris", "locale": "fr-FR"])))
        #expect(month["from"] as? String == "2030-03-01")
        #expect(month["to"] as? String == "2030-03-31")
        #expect(month["starts_at"] as? String == "2030-02-28T23:00:00.000Z")
        #expect(month["ends_at"] as? String == "2030-03-31T22:00:00.000Z")
        #expect(month["first_weekday"] as? Int == 2)
        #expect(month["previous"] as? String == "2030-02-01")
        #expect(month["next"] as? String == "2030-04-01")
        #expect(month["time_zone"] as? String == "Europe/Paris")
        let events = month["events"] as? [[String: Any]] ?? []
        #expect(events.map { $0["event_id"] as? Int } == [dinner, concert])
        #expect(events.last?["status"] as? String == "cancelled")
        let days = (month["days"] as? [[String: Any]] ?? []).map {
            "\($0["date"] as? String ?? "?") \($0["event_ids"] as? [Int] ?? [])"
        }
        #expect(
            days == [
                "2030-03-09 [\(dinner)]", "2030-03-10 [\(dinner)]", "2030-03-30 [\(concert)]",
                "2030-03-31 [\(concert)]",
            ])
        #expect(!events.contains { $0["event_id"] as? Int == skipped })

        // Without a zone: the user's (UTC when unset), en-US weeks; today is the server's today in that zone.
        let week = try #require(ok(try ann.client.call("calendar.get", ["range": "week", "date": "2030-03-09"])))
        #expect(week["time_zone"] as? String == "UTC")
        #expect(week["first_weekday"] as? Int == 1)
        #expect(week["from"] as? String == "2030-03-03")
        #expect((week["days"] as? [[String: Any]])?.map { $0["date"] as? String } == ["2030-03-09"])
        let f = DateFormatter()
        f.dateFormat = "yyyy-MM-dd"
        f.timeZone = TimeZone(identifier: "UTC")
        let today = try #require(ok(try ann.client.call("calendar.get", ["range": "day"])))
        #expect(
            [f.string(from: Date()), f.string(from: Date().addingTimeInterval(-5))].contains(
                today["today"] as? String ?? ""))
        #expect(today["from"] as? String == today["today"] as? String)
        for params in [
            ["range": "fortnight"], ["range": "day", "date": "2030-02-30"],
            ["range": "day", "time_zone": "Nowhere/City"], ["range": "day", "locale": "!!"],
        ] {
            #expect(errorCode(try ann.client.call("calendar.get", params)) == "bad_request", "\(params)")
        }

        // Quitting the community drops the upcoming participations: they leave the calendar at once.
        let quit = try #require(ok(try ann.client.call("communities.quit", ["community_id": club])))
        let dropped = quit["dropped_event_ids"] as? [Int]
        #expect(dropped == [dinner, concert, april].sorted())  // all of them are still to come (the cancelled one too)
        let after = try #require(
            ok(
                try ann.client.call(
                    "calendar.get", ["range": "month", "date": "2030-04-01", "time_zone": "Europe/Paris"])))
        #expect((after["events"] as? [[String: Any]])?.isEmpty == true)
        #expect((after["days"] as? [[String: Any]])?.isEmpty == true)
        #expect(
            try integer(database, "SELECT participant_count FROM community_events WHERE id = $1", [.int(Int64(april))])
                == 0)
    }
}
