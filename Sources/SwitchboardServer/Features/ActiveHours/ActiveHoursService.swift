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

/// Active-hours statistics' use cases (docs/protocol.md "Active hours"): `stats.active_hours` (seconds per local
/// date) and `stats.active_day` (seconds per local hour of one date), for oneself or a friend (anyone else:
/// `notFound`, as for a missing user). One small indexed read of `active_hours` united with what the recorder has
/// not written yet (`ActiveHoursRecorder.unrecorded`: the open interval up to now, on any node, and finished
/// intervals waiting for their write). Off the loops only.
final class ActiveHoursService: Sendable {
    /// The database (the server's pool, the test database in tests).
    let db: any Database
    /// This node's recorder (fed by presence).
    let recorder: ActiveHoursRecorder

    /// Most dates one `stats.active_hours` covers.
    static let maxDays = 366
    /// Dates of the default range (the last 30 days up to `to`).
    static let defaultDays = 30

    init(db: any Database, recorder: ActiveHoursRecorder) {
        self.db = db
        self.recorder = recorder
    }

    /// `stats.active_hours`: seconds per local date of `user` (the viewer by default) from `from` to `to` (by
    /// default the last 30 days up to today in the user's zone), at most 366 dates, none before registration.
    func activeHours(
        viewer: Int64, user: Int64?, from: String?, to: String?
    ) async throws(ActiveHoursError) -> ActiveHoursResult {
        let from = try from.map { d throws(ActiveHoursError) in try Self.date(d, field: "from") }
        let to = try to.map { d throws(ActiveHoursError) in try Self.date(d, field: "to") }
        let user = user ?? viewer
        let read = try await self.read(viewer: viewer, user: user) { today throws(ActiveHoursError) in
            let last = to ?? today
            let first = from ?? ActiveHoursCalendar.adding(-(Self.defaultDays - 1), to: last) ?? last
            guard let span = ActiveHoursCalendar.distance(from: first, to: last), span >= 0 else {
                throw .fromAfterTo
            }
            guard span < Self.maxDays else { throw .tooManyDays(max: Self.maxDays) }
            return (first, last)
        }
        var days: [ActiveHoursDay] = []
        if let first = read.first, let count = ActiveHoursCalendar.distance(from: first, to: read.last), count >= 0 {
            days.reserveCapacity(count + 1)
            for offset in 0...count {
                guard let day = ActiveHoursCalendar.adding(offset, to: first) else { break }
                days.append(ActiveHoursDay(date: day, seconds: read.accumulator.seconds(on: day)))
            }
        }
        return ActiveHoursResult(
            userId: user, timeZone: read.zoneName, since: read.since, today: read.today, days: days)
    }

    /// `stats.active_day`: seconds per local hour of `date` for `user` (the viewer by default).
    func activeDay(viewer: Int64, user: Int64?, date: String) async throws(ActiveHoursError) -> ActiveDayResult {
        let date = try Self.date(date, field: "date")
        let read = try await self.read(viewer: viewer, user: user ?? viewer) { _ throws(ActiveHoursError) in
            (date, date)
        }
        let hours = read.accumulator.hourly(on: date, zone: read.zone)
        return ActiveDayResult(date: date, seconds: hours.reduce(0, +), hours: hours)
    }

    /// A `YYYY-MM-DD` parameter; `badDate` naming the field otherwise.
    static func date(_ text: String, field: String) throws(ActiveHoursError) -> String {
        guard ActiveHoursCalendar.parse(text) != nil else { throw .badDate(field: field) }
        return text
    }

    /// What one read found.
    struct Read: Sendable {
        /// The user's zone.
        var zone: TimeZone
        /// The stored name (`UTC` when never set).
        var zoneName: String
        /// The local date of registration.
        var since: String
        /// The local date now.
        var today: String
        /// The first date read (the later of the asked one and `since`), nil when the range ends before `since`.
        var first: String?
        /// The last date read.
        var last: String
        /// The seconds read, per local hour.
        var accumulator: ActiveHoursAccumulator
    }

    /// Checks that the viewer may read `user` (itself or a friend), learns its zone and registration, asks `range`
    /// for the dates (given today in its zone), and reads them.
    private func read(
        viewer me: Int64, user: Int64, range: (String) throws(ActiveHoursError) -> (String, String)
    ) async throws(ActiveHoursError) -> Read {
        let subject = try await db.read(as: ActiveHoursError.self) { db -> ActiveHoursRepository.Subject? in
            if user != me { guard try FriendRepository.areFriends(db, user, me) else { return nil } }
            return try ActiveHoursRepository.subject(db, userId: user)
        }
        guard let subject else { throw .notFound }
        let zone = ActiveHoursCalendar.zone(subject.timeZone)
        let calendar = ActiveHoursCalendar.calendar(zone)
        // The unwritten time first: a write that lands between the two reads is then in both (counted once).
        let (unrecorded, now) = await recorder.unrecorded(of: user)
        let today = ActiveHoursCalendar.day(of: now, in: calendar)
        let since = ActiveHoursCalendar.day(of: subject.registeredAt, in: calendar)
        let (asked, last) = try range(today)
        let first = max(asked, since)
        let zoneName = subject.timeZone ?? "UTC"
        guard first <= last else {
            return Read(
                zone: zone, zoneName: zoneName, since: since, today: today, first: nil, last: last,
                accumulator: ActiveHoursAccumulator())
        }
        // Stored seconds of the range, and (a day more on each side, for time filed in another zone) every stored
        // second in real time: the unwritten time adds only what is not stored yet, whatever zone that was filed in.
        let around = (
            ActiveHoursCalendar.adding(-1, to: first) ?? first, ActiveHoursCalendar.adding(1, to: last) ?? last
        )
        var (accumulator, covered) = try await db.read(as: ActiveHoursError.self) { db in
            var nearby = ActiveHoursAccumulator()
            try ActiveHoursRepository.load(db, userId: user, from: around.0, to: around.1, into: &nearby)
            var stored = ActiveHoursAccumulator()
            for (hour, spans) in nearby.hours where hour.day >= first && hour.day <= last { stored.add(hour, spans) }
            return (stored, nearby.absolute)
        }
        for interval in unrecorded {
            accumulator.add(from: interval.from, to: interval.to, zone: zone, except: covered)
        }
        return Read(
            zone: zone, zoneName: zoneName, since: since, today: today, first: first, last: last,
            accumulator: accumulator)
    }
}
