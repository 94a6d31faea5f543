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

/// The server's wall clock for active hours, moved by the test.
private final class TestWallClock: @unchecked Sendable {
    // @unchecked Sendable: `date` only under `lock`.
    private let lock = NSLock()
    private var date: Date
    init(_ date: Date) { self.date = date }
    var now: Date {
        lock.lock()
        defer { lock.unlock() }
        return date
    }
    func set(_ new: Date) {
        lock.lock()
        date = new
        lock.unlock()
    }
}

private func utcDay(_ date: Date) -> String {
    let f = DateFormatter()
    f.locale = Locale(identifier: "en_US_POSIX")
    f.timeZone = TimeZone(identifier: "UTC")
    f.dateFormat = "yyyy-MM-dd"
    return f.string(from: date)
}

private func days(_ result: [String: Any]?) -> [String: Int] {
    var out: [String: Int] = [:]
    for day in (result?["days"] as? [[String: Any]]) ?? [] {
        if let date = day["date"] as? String, let seconds = day["seconds"] as? Int { out[date] = seconds }
    }
    return out
}

@Suite("Active hours over the real protocol", .serialized)
struct ActiveHoursIntegrationTests {
    @Test func twoDevicesCountOnceFriendsReadStrangersDoNotAndTheZoneMovesTheDaySplit() throws {
        // Two days after today (registration is today, by the database's clock), 22:00 UTC.
        let today0 = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 86_400).rounded(.down) * 86_400)
        let d2 = today0.addingTimeInterval(2 * 86_400)
        let d3 = today0.addingTimeInterval(3 * 86_400)
        let clock = TestWallClock(d2.addingTimeInterval(22 * 3600))
        let (server, port, database) = try startProtocolServer {
            $0.activeHours.now = { clock.now }
            $0.activeHours.flushDelay = 0
        }
        defer { stop(server); database.close() }

        // Dan lives in Tokyo (UTC+9) from the start: 22:00Z-01:00Z is 07:00-10:00 on the next local date.
        let dan = try makeUser(port, "dan")
        let zoned = try #require(
            ok(try dan.client.call("profile.update", ["time_zone": "Asia/Tokyo"]))?["profile"] as? [String: Any])
        #expect(zoned["time_zone"] as? String == "Asia/Tokyo")
        #expect(zoned["locale"] as? String == "en-US")
        #expect(zoned["display_name"] as? String == "dan")

        // Ann: device 1 from 23:00Z, device 2 from 23:30Z; device 1 leaves at 00:30Z, device 2 at 01:00Z.
        clock.set(d2.addingTimeInterval(23 * 3600))
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let carol = try makeUser(port, "carol")
        try befriend(ann, bob)
        clock.set(d2.addingTimeInterval(23.5 * 3600))
        let annPhone = try secondDevice(port, ann, "ann-2")
        clock.set(d3.addingTimeInterval(0.5 * 3600))
        ann.client.socket.shutdownBoth()
        clock.set(d3.addingTimeInterval(1 * 3600))
        annPhone.socket.shutdownBoth()
        // Both closes were seen (ann is offline for bob), and the union is written.
        let annId = Int64(ann.id)
        let written = waitUntil(timeout: 20) {
            ((try? database.pool.connectionForTests { db in
                try db.execute(cached: "SELECT count(*) FROM active_hours WHERE user_id = $1", [.int(annId)]).first?
                    .string(0)
            }) ?? nil) == "2"
        }
        #expect(written)

        // Bob, a friend, reads ann's series: 3,600 s on each side of midnight UTC (counted once, not 5,400 + 3,600).
        let annDays = ok(
            try bob.client.call("stats.active_hours", ["user_id": ann.id, "from": utcDay(d2), "to": utcDay(d3)]))
        #expect(annDays?["user_id"] as? Int == ann.id)
        #expect(annDays?["time_zone"] as? String == "UTC")
        #expect(annDays?["today"] as? String == utcDay(d3))
        #expect(days(annDays) == [utcDay(d2): 3600, utcDay(d3): 3600])
        let annDay = ok(try bob.client.call("stats.active_day", ["user_id": ann.id, "date": utcDay(d2)]))
        let hours = try #require(annDay?["hours"] as? [Int])
        #expect(hours.count == 24)
        #expect(hours[23] == 3600)
        #expect(annDay?["seconds"] as? Int == 3600)
        #expect(
            (ok(try bob.client.call("stats.active_day", ["user_id": ann.id, "date": utcDay(d3)]))?["hours"] as? [Int])?[
                0] == 3600)

        // Carol is no friend: the same not_found as a missing user.
        #expect(errorCode(try carol.client.call("stats.active_hours", ["user_id": ann.id])) == "not_found")
        #expect(
            errorCode(try carol.client.call("stats.active_day", ["user_id": ann.id, "date": utcDay(d2)])) == "not_found"
        )
        #expect(errorCode(try carol.client.call("stats.active_hours", ["user_id": 999_999_999])) == "not_found")
        #expect(errorCode(try bob.client.call("stats.active_hours", ["from": "2026-02-30"])) == "bad_request")
        #expect(
            errorCode(try bob.client.call("stats.active_hours", ["from": utcDay(d3), "to": utcDay(d2)]))
                == "bad_request")
        #expect(
            errorCode(try bob.client.call("stats.active_hours", ["from": "2020-01-01", "to": "2021-01-01"]))
                == "bad_request")

        // Dan, still connected (the open interval counts up to now), in Tokyo: everything on the next local date.
        let danDays = ok(try dan.client.call("stats.active_hours", ["from": utcDay(d2), "to": utcDay(d3)]))
        #expect(danDays?["time_zone"] as? String == "Asia/Tokyo")
        #expect(days(danDays) == [utcDay(d2): 0, utcDay(d3): 3 * 3600])
        let danHours = try #require(
            ok(try dan.client.call("stats.active_day", ["date": utcDay(d3)]))?["hours"] as? [Int])
        #expect(Array(danHours[7...9]) == [3600, 3600, 3600])
        #expect(danHours.reduce(0, +) == 3 * 3600)

        // Dan moves to UTC while connected: his time so far stays where it was filed (the next local date in
        // Tokyo), and the open interval adds nothing twice.
        _ = try #require(ok(try dan.client.call("profile.update", ["time_zone": "UTC"])))
        clock.set(d3.addingTimeInterval(1.5 * 3600))
        let moved = ok(try dan.client.call("stats.active_hours", ["from": utcDay(d2), "to": utcDay(d3)]))
        #expect(moved?["time_zone"] as? String == "UTC")
        #expect(days(moved) == [utcDay(d2): 0, utcDay(d3): 3 * 3600 + 1800])

        // The default range: the last 30 days up to today, from the registration date on, zeros included.
        let recent = try #require(
            ok(try bob.client.call("stats.active_hours", ["user_id": ann.id]))?["days"] as? [[String: Any]])
        #expect(recent.last?["date"] as? String == utcDay(d3))
        #expect(recent.count >= 3 && recent.count <= 5)
        #expect(
            recent.first?["date"] as? String == ok(try bob.client.call("stats.active_hours", ["user_id": ann.id]))?[
                "since"] as? String)
    }

    @Test func deletingTheAccountRemovesItsActiveHours() throws {
        let (server, port, database) = try startProtocolServer { $0.activeHours.checkpointInterval = 1 }
        defer { stop(server); database.close() }
        let gil = try makeUser(port, "gil")
        let id = Int64(gil.id)
        func rows() -> Int {
            (try? database.pool.connectionForTests { db in
                Int(
                    try db.execute(cached: "SELECT count(*) FROM active_hours WHERE user_id = $1", [.int(id)]).first?
                        .string(0) ?? "-1") ?? -1
            }) ?? -1
        }
        // The checkpoint (every second here) writes the open interval of the connected device.
        #expect(waitUntil(timeout: 20) { rows() >= 1 })
        _ = try #require(ok(try gil.client.call("account.delete", ["password": gil.password])))
        #expect(waitUntil(timeout: 30) { rows() == 0 })
    }

    @Test func profileUpdateValidatesZoneAndLocaleAndKeepsTheName() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let eve = try makeUser(port, "eve")
        #expect(errorCode(try eve.client.call("profile.update", ["time_zone": "Mars/Olympus"])) == "bad_request")
        #expect(errorCode(try eve.client.call("profile.update", ["locale": "not a locale"])) == "bad_request")
        #expect(errorCode(try eve.client.call("profile.update", [:])) == "bad_request")
        let updated = try #require(
            ok(try eve.client.call("profile.update", ["time_zone": "Europe/Paris", "locale": "fr-FR"]))?["profile"]
                as? [String: Any])
        #expect(updated["display_name"] as? String == "eve")
        #expect(updated["time_zone"] as? String == "Europe/Paris")
        #expect(updated["locale"] as? String == "fr-FR")
        let own = try #require(ok(try eve.client.call("profile.get"))?["profile"] as? [String: Any])
        #expect(own["time_zone"] as? String == "Europe/Paris")
        #expect(own["locale"] as? String == "fr-FR")
        // A new device learns them from its authentication, like the rest of its own profile.
        let device = try ProtocolClient(port: port)
        let session = try #require(
            ok(try device.call("authenticate", ["token": eve.token]))?["profile"] as? [String: Any])
        #expect(session["time_zone"] as? String == "Europe/Paris")
        #expect(session["locale"] as? String == "fr-FR")
        // A failed request changes nothing.
        #expect(
            errorCode(try eve.client.call("profile.update", ["display_name": "Eve", "time_zone": "Nowhere/Else"]))
                == "bad_request")
        let same = try #require(ok(try eve.client.call("profile.get"))?["profile"] as? [String: Any])
        #expect(same["display_name"] as? String == "eve")
    }
}
