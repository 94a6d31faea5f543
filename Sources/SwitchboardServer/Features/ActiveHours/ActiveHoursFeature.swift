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

/// Active-hours statistics: `stats.active_hours` (seconds per local date) and `stats.active_day` (seconds per local
/// hour of one date), for oneself or a friend (anyone else: `not_found`, as for a missing user). One small indexed
/// read of `active_hours` united with what this node has not written yet (`ActiveHoursRecorder.unrecorded`: the
/// open interval up to now, on any node, and finished intervals waiting for their write).
struct ActiveHoursFeature: Feature {
    static let migrations: [Migration] = [.v0010ActiveHours]

    init(context: ProtocolServices) {}

    /// Most dates one `stats.active_hours` covers.
    static let maxDays = 366
    /// Dates of the default range (the last 30 days up to `to`).
    static let defaultDays = 30

    func register(in registry: inout FeatureRegistry) {
        registry.add(ActiveHoursAccountData.deletionSteps)
        registry.add(ActiveHoursAccountData.exportSection)
        registry.operations.register(Ops.StatsActiveHours.self) { s, p async throws(ServiceError) -> ActiveHoursResult in
            let from = try p.from.map { d throws(ServiceError) in try Self.date(d, field: "from") }
            let to = try p.to.map { d throws(ServiceError) in try Self.date(d, field: "to") }
            let user = p.userId ?? s.userId
            let read = try await Self.read(s.services, viewer: s.userId, user: user) { today throws(ServiceError) in
                let last = to ?? today
                let first = from ?? ActiveHoursCalendar.adding(-(Self.defaultDays - 1), to: last) ?? last
                guard let span = ActiveHoursCalendar.distance(from: first, to: last), span >= 0 else {
                    throw ServiceError(.badRequest, "from must not be after to")
                }
                guard span < Self.maxDays else { throw ServiceError(.badRequest, "at most \(Self.maxDays) days") }
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
            return ActiveHoursResult(userId: user, timeZone: read.zoneName, since: read.since, today: read.today, days: days)
        }
        registry.operations.register(Ops.StatsActiveDay.self) { s, p async throws(ServiceError) -> ActiveDayResult in
            let date = try Self.date(p.date, field: "date")
            let read = try await Self.read(s.services, viewer: s.userId, user: p.userId ?? s.userId) { _ throws(ServiceError) in (date, date) }
            let hours = read.accumulator.hourly(on: date, zone: read.zone)
            return ActiveDayResult(date: date, seconds: hours.reduce(0, +), hours: hours)
        }
    }

    /// A `YYYY-MM-DD` parameter; `bad_request` naming the field otherwise.
    static func date(_ text: String, field: String) throws(ServiceError) -> String {
        guard ActiveHoursCalendar.parse(text) != nil else { throw ServiceError(.badRequest, "\(field): expected a date YYYY-MM-DD") }
        return text
    }

    struct Read: Sendable {
        var zone: TimeZone
        /// The stored name (`UTC` when never set).
        var zoneName: String
        var since: String
        var today: String
        /// The first date read (the later of the asked one and `since`), nil when the range ends before `since`.
        var first: String?
        var last: String
        var accumulator: ActiveHoursAccumulator
    }

    /// Checks that the viewer may read `user` (itself or a friend), learns its zone and registration, asks `range`
    /// for the dates (given today in its zone), and reads them.
    static func read(
        _ services: ProtocolServices, viewer me: Int64, user: Int64,
        range: (String) throws(ServiceError) -> (String, String)
    ) async throws(ServiceError) -> Read {
        let pool = services.accounts.pool
        let subject: ActiveHoursRepository.Subject?
        do {
            subject = try await pool.withConnection { db -> ActiveHoursRepository.Subject? in
                if user != me { guard try FriendRepository.areFriends(db, user, me) else { return nil } }
                return try ActiveHoursRepository.subject(db, userId: user)
            }
        } catch { throw ServiceError.from(error) }
        guard let subject else { throw ServiceError(.notFound, "no such user among your friends") }
        let zone = ActiveHoursCalendar.zone(subject.timeZone)
        let calendar = ActiveHoursCalendar.calendar(zone)
        // The unwritten time first: a write that lands between the two reads is then in both (counted once).
        let (unrecorded, now) = await services.activeHours.unrecorded(of: user)
        let today = ActiveHoursCalendar.day(of: now, in: calendar)
        let since = ActiveHoursCalendar.day(of: subject.registeredAt, in: calendar)
        let (asked, last) = try range(today)
        let first = max(asked, since)
        var accumulator = ActiveHoursAccumulator()
        guard first <= last else {
            return Read(zone: zone, zoneName: subject.timeZone ?? "UTC", since: since, today: today, first: nil, last: last, accumulator: accumulator)
        }
        // Stored seconds of the range, and (a day more on each side, for time filed in another zone) every stored
        // second in real time: the unwritten time adds only what is not stored yet, whatever zone that was filed in.
        let around = (ActiveHoursCalendar.adding(-1, to: first) ?? first, ActiveHoursCalendar.adding(1, to: last) ?? last)
        let covered: SecondSpans
        do {
            (accumulator, covered) = try await pool.withConnection { db in
                var nearby = ActiveHoursAccumulator()
                try ActiveHoursRepository.load(db, userId: user, from: around.0, to: around.1, into: &nearby)
                var stored = ActiveHoursAccumulator()
                for (hour, spans) in nearby.hours where hour.day >= first && hour.day <= last { stored.add(hour, spans) }
                return (stored, nearby.absolute)
            }
        } catch { throw ServiceError.from(error) }
        for interval in unrecorded { accumulator.add(from: interval.from, to: interval.to, zone: zone, except: covered) }
        return Read(zone: zone, zoneName: subject.timeZone ?? "UTC", since: since, today: today, first: first, last: last, accumulator: accumulator)
    }
}
