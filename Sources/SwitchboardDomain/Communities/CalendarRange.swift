//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

/// A day, week, month or year of a calendar in one time zone: its dates, its instants, its neighbours and
/// which of its days the given events touch (`calendar.get`, docs/protocol.md "Events and calendar").
///
/// A day is [local midnight, next local midnight) in the zone, computed by Foundation's `Calendar` (23 or 25
/// hours across a daylight-saving change; where midnight does not exist, the day starts at the first instant
/// that does). A week starts on the locale's first weekday (en-US Sunday, fr-FR/de-DE Monday).
public struct CalendarRange: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case day, week, month, year
    }

    public var kind: Kind
    public var timeZone: TimeZone
    /// 1 = Sunday ... 7 = Saturday.
    public var firstWeekday: Int
    /// Today's date in the zone at the `now` given.
    public var today: LocalDate
    /// The first and last dates of the range (inclusive).
    public var from: LocalDate
    public var to: LocalDate
    /// Local midnight starting `from`, and local midnight after `to` (exclusive).
    public var startsAt: Date
    public var endsAt: Date
    /// The first date of the previous range and of the next one (nil beyond year 1 or 9999).
    public var previous: LocalDate?
    public var next: LocalDate?

    /// The `kind` range containing `anchor` (default: today in `timeZone` at `now`), weeks starting on the first
    /// weekday of `locale` (a BCP 47 or ICU identifier; unknown regions fall back to Foundation's default).
    /// Nil only for anchors at the very edges of years 1-9999.
    public init?(kind: Kind, anchor: LocalDate?, timeZone: TimeZone, locale: String, now: Date) {
        let calendar = Self.calendar(timeZone)
        var localeCalendar = Calendar(identifier: .gregorian)
        localeCalendar.locale = Locale(identifier: locale)
        let firstWeekday = localeCalendar.firstWeekday
        guard let today = Self.date(of: now, in: calendar) else { return nil }
        let anchor = anchor ?? today
        let from: LocalDate?
        let to: LocalDate?
        let previous: LocalDate?
        let next: LocalDate?
        switch kind {
        case .day:
            from = anchor
            to = anchor
            previous = anchor.adding(days: -1)
            next = anchor.adding(days: 1)
        case .week:
            let back = (anchor.weekday - firstWeekday + 7) % 7
            from = anchor.adding(days: -back)
            to = from?.adding(days: 6)
            previous = from?.adding(days: -7)
            next = from?.adding(days: 7)
        case .month:
            from = LocalDate(year: anchor.year, month: anchor.month, day: 1)
            to = LocalDate(
                year: anchor.year, month: anchor.month, day: LocalDate.daysIn(year: anchor.year, month: anchor.month))
            previous =
                anchor.month == 1
                ? LocalDate(year: anchor.year - 1, month: 12, day: 1)
                : LocalDate(year: anchor.year, month: anchor.month - 1, day: 1)
            next =
                anchor.month == 12
                ? LocalDate(year: anchor.year + 1, month: 1, day: 1)
                : LocalDate(year: anchor.year, month: anchor.month + 1, day: 1)
        case .year:
            from = LocalDate(year: anchor.year, month: 1, day: 1)
            to = LocalDate(year: anchor.year, month: 12, day: 31)
            previous = LocalDate(year: anchor.year - 1, month: 1, day: 1)
            next = LocalDate(year: anchor.year + 1, month: 1, day: 1)
        }
        guard let from, let to, let startsAt = Self.start(of: from, in: calendar), let afterTo = to.adding(days: 1),
            let endsAt = Self.start(of: afterTo, in: calendar)
        else { return nil }
        self.kind = kind
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
        self.today = today
        self.from = from
        self.to = to
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.previous = previous
        self.next = next
    }

    /// A Gregorian calendar in `timeZone`.
    static func calendar(_ timeZone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        return calendar
    }

    /// The local date of `instant` in the calendar's zone.
    static func date(of instant: Date, in calendar: Calendar) -> LocalDate? {
        let c = calendar.dateComponents([.year, .month, .day], from: instant)
        guard let y = c.year, let m = c.month, let d = c.day else { return nil }
        return LocalDate(year: y, month: m, day: d)
    }

    /// The first instant of `date` in the calendar's zone (local midnight, or the first instant after it where
    /// midnight is skipped by a change of offset).
    static func start(of date: LocalDate, in calendar: Calendar) -> Date? {
        // Noon always exists; the start of its day is the day's first instant.
        guard
            let noon = calendar.date(from: DateComponents(year: date.year, month: date.month, day: date.day, hour: 12))
        else { return nil }
        return calendar.startOfDay(for: noon)
    }

    /// The local date of `instant` in `timeZone`.
    public static func date(of instant: Date, in timeZone: TimeZone) -> LocalDate? {
        date(of: instant, in: calendar(timeZone))
    }

    /// The first instant of `date` in `timeZone`.
    public static func start(of date: LocalDate, in timeZone: TimeZone) -> Date? {
        start(of: date, in: calendar(timeZone))
    }

    /// An event (or anything with an instant interval) to place on days: [startsAt, endsAt).
    public struct Span: Sendable, Equatable {
        public var id: Int64
        public var startsAt: Date
        public var endsAt: Date
        public init(id: Int64, startsAt: Date, endsAt: Date) {
            self.id = id
            self.startsAt = startsAt
            self.endsAt = endsAt
        }
    }

    /// A day of the range and the ids of the spans it touches.
    public struct Day: Sendable, Equatable {
        public var date: LocalDate
        public var ids: [Int64]
        public init(date: LocalDate, ids: [Int64]) {
            self.date = date
            self.ids = ids
        }
    }

    /// The days of this range that the spans touch, in date order, each with the ids of its spans in the order
    /// given. A span is on every local day that its interval [startsAt, endsAt) meets (an event from 22:00 to
    /// 02:00 is on both days; one ending exactly at midnight is not on the next day); spans are clipped to the
    /// range.
    public func days(_ spans: [Span]) -> [Day] {
        let calendar = Self.calendar(timeZone)
        var byDate: [LocalDate: [Int64]] = [:]
        for span in spans where span.endsAt > startsAt && span.startsAt < endsAt && span.endsAt > span.startsAt {
            // The last instant inside the span: wire timestamps have millisecond precision.
            let last = max(span.startsAt, span.endsAt.addingTimeInterval(-0.001))
            guard let first = Self.date(of: max(span.startsAt, startsAt), in: calendar),
                let final = Self.date(of: min(last, endsAt.addingTimeInterval(-0.001)), in: calendar)
            else { continue }
            var date = max(first, from)
            let end = min(final, to)
            var guardCount = 0
            while date <= end, guardCount < 400 {
                byDate[date, default: []].append(span.id)
                guard let following = date.adding(days: 1) else { break }
                date = following
                guardCount += 1
            }
        }
        return byDate.keys.sorted().map { Day(date: $0, ids: byDate[$0] ?? []) }
    }
}
