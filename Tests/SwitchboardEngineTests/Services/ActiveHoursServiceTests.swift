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
import Synchronization
import Testing

@testable import SwitchboardServer

/// A wall clock the test moves (active hours' recorder reads dates, not monotonic time).
final class ServiceWallClock: Sendable {
    private let date: Mutex<Date>
    init(_ date: Date) { self.date = Mutex(date) }
    var now: Date { date.withLock { $0 } }
    func advance(by seconds: Double) { date.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// `ActiveHoursService` without sockets: its date rules, who may read whom, and the recorder's unwritten time
/// united with the stored time (each second counted once).
@Suite("Active hours service (the test database, a manual wall clock)")
struct ActiveHoursServiceTests {
    let wall = ServiceWallClock(Date())

    /// A service over a recorder of its own (not started: writes happen on `checkpoint`).
    func service() throws -> ActiveHoursService {
        var configuration = ActiveHoursConfiguration()
        configuration.flushDelay = 3600
        let wall = self.wall
        configuration.now = { wall.now }
        let recorder = ActiveHoursRecorder(
            pool: try EngineTestDatabase.shared.pool, configuration: configuration, logger: testLogger(), localNode: nil
        )
        return ActiveHoursService(db: try EngineTestDatabase.shared.pool, recorder: recorder)
    }

    /// The UTC date of `date`, as the service names days.
    func day(_ date: Date, plus days: Int = 0) -> String {
        let utc = ActiveHoursCalendar.calendar(ActiveHoursCalendar.zone(nil))
        return ActiveHoursCalendar.adding(days, to: ActiveHoursCalendar.day(of: date, in: utc)) ?? ""
    }

    @Test func theDateRulesComeFirst() async throws {
        let ann = try await EngineTestDatabase.shared.user("ann")
        let stats = try service()
        await #expect(throws: ActiveHoursError.badDate(field: "from")) {
            _ = try await stats.activeHours(viewer: ann, user: nil, from: "yesterday", to: nil)
        }
        await #expect(throws: ActiveHoursError.badDate(field: "to")) {
            _ = try await stats.activeHours(viewer: ann, user: nil, from: nil, to: "2024-13-01")
        }
        await #expect(throws: ActiveHoursError.badDate(field: "date")) {
            _ = try await stats.activeDay(viewer: ann, user: nil, date: "2024/01/01")
        }
        await #expect(throws: ActiveHoursError.fromAfterTo) {
            _ = try await stats.activeHours(viewer: ann, user: nil, from: "2024-01-02", to: "2024-01-01")
        }
        await #expect(throws: ActiveHoursError.tooManyDays(max: 366)) {
            _ = try await stats.activeHours(viewer: ann, user: nil, from: "2023-01-01", to: "2024-06-01")
        }
        #expect(ActiveHoursError.tooManyDays(max: 366).wire.message == "at most 366 days")
    }

    @Test func oneselfAndFriendsReadStrangersDoNot() async throws {
        let db = EngineTestDatabase.shared
        let (ann, bob, zed) = (try await db.user("ann"), try await db.user("bob"), try await db.user("zed"))
        try await db.befriend(ann, bob)
        let stats = try service()
        let own = try await stats.activeHours(viewer: ann, user: nil, from: nil, to: nil)
        #expect(own.userId == ann && own.timeZone == "UTC")
        // Registered today: the range starts at registration.
        #expect(own.days.first?.date == own.since)
        #expect(try await stats.activeHours(viewer: bob, user: ann, from: nil, to: nil).userId == ann)
        await #expect(throws: ActiveHoursError.notFound) {
            _ = try await stats.activeHours(viewer: zed, user: ann, from: nil, to: nil)
        }
        await #expect(throws: ActiveHoursError.notFound) {
            _ = try await stats.activeDay(viewer: zed, user: ann, date: own.today)
        }
        await #expect(throws: ActiveHoursError.notFound) {
            _ = try await stats.activeDay(viewer: ann, user: -1, date: own.today)
        }
    }

    @Test func unwrittenAndStoredTimeCountOnce() async throws {
        let ann = try await EngineTestDatabase.shared.user("ann")
        let stats = try service()
        let start = wall.now
        let (from, to) = (day(start, plus: -1), day(start, plus: 1))
        func total() async throws -> Int {
            try await stats.activeHours(viewer: ann, user: nil, from: from, to: to).days.reduce(0) { $0 + $1.seconds }
        }
        #expect(try await total() == 0)
        let phone = device(user: ann, session: newSession())
        stats.recorder.connected(phone)
        // The recorder reads the wall clock on its queue: the connection is stamped before the clock moves.
        await settle(stats.recorder.queue)
        wall.advance(by: 600)
        // The open interval up to now, not written yet.
        #expect(try await total() == 600)
        stats.recorder.disconnected(phone)
        // Written now (stored), and no longer unwritten: still 600.
        await stats.recorder.checkpoint(user: ann)
        #expect(try await total() == 600)
        let stored = try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(cached: "SELECT count(*) FROM active_hours WHERE user_id = $1", [.int(ann)])
                .decodeFirst(Int64.self) ?? 0
        }
        #expect(stored > 0)
        let hours = try await stats.activeDay(viewer: ann, user: nil, date: day(start))
        #expect(hours.hours.count == 24)
        #expect(hours.seconds == hours.hours.reduce(0, +))
    }
}
