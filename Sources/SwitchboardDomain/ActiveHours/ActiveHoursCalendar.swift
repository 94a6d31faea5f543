//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

// Active-hours statistics (docs/protocol.md "Active hours", docs/architecture.md "Active hours"): the pure parts.
// Connected time is kept per local hour of the user's local day as a set of second offsets, so that the same second
// recorded twice (two devices, two nodes, a checkpoint repeated after a crash) counts once.

/// Calendar arithmetic of active hours: local days and hours in a time zone, dates as `YYYY-MM-DD`.
public enum ActiveHoursCalendar {
    /// The Gregorian calendar in `zone`.
    public static func calendar(_ zone: TimeZone) -> Calendar {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        return calendar
    }

    /// A stored zone name (NULL = UTC) as a `TimeZone`; an unknown stored name is UTC too.
    public static func zone(_ name: String?) -> TimeZone {
        name.flatMap { TimeZone(identifier: $0) } ?? TimeZone(identifier: "UTC")!
    }

    /// The local date of an instant.
    public static func day(of instant: Date, in calendar: Calendar) -> String {
        let c = calendar.dateComponents([.year, .month, .day], from: instant)
        return format(year: c.year ?? 1970, month: c.month ?? 1, day: c.day ?? 1)
    }

    static func format(year: Int, month: Int, day: Int) -> String {
        String(format: "%04d-%02d-%02d", year, month, day)
    }

    /// A `YYYY-MM-DD` date's components, or nil when it is not a real date (the one date parser: `LocalDate`).
    public static func parse(_ text: String) -> (year: Int, month: Int, day: Int)? {
        LocalDate(text).map { ($0.year, $0.month, $0.day) }
    }

    /// The local day `[start, end)` of a date in the calendar's zone (23 or 25 hours across a DST change).
    public static func bounds(of day: String, in calendar: Calendar) -> (start: Date, end: Date)? {
        guard let (y, m, d) = parse(day) else { return nil }
        var c = DateComponents()
        c.year = y
        c.month = m
        c.day = d
        c.hour = 12
        guard let noon = calendar.date(from: c) else { return nil }
        let start = calendar.startOfDay(for: noon)
        guard let next = calendar.date(byAdding: .day, value: 1, to: noon) else { return nil }
        return (start, calendar.startOfDay(for: next))
    }

    /// The number of local hours of a date: 24, or 23/25 on DST days.
    public static func hourCount(of day: String, in calendar: Calendar) -> Int {
        guard let (start, end) = bounds(of: day, in: calendar) else { return 24 }
        let seconds = Int(end.timeIntervalSince(start).rounded())
        return max(1, (seconds + 3599) / 3600)
    }

    /// The date `days` days after `day` (negative: before).
    public static func adding(_ days: Int, to day: String) -> String? {
        let utc = calendar(TimeZone(identifier: "UTC")!)
        guard let (start, _) = bounds(of: day, in: utc), let moved = utc.date(byAdding: .day, value: days, to: start)
        else { return nil }
        return self.day(of: moved, in: utc)
    }

    /// Days from `a` to `b` (`b` - `a`).
    public static func distance(from a: String, to b: String) -> Int? {
        let utc = calendar(TimeZone(identifier: "UTC")!)
        guard let (x, _) = bounds(of: a, in: utc), let (y, _) = bounds(of: b, in: utc) else { return nil }
        return Int((y.timeIntervalSince(x) / 86_400).rounded())
    }

    /// Splits `[from, to)` (whole seconds since 1970) at local hours and midnights in the calendar's zone: each
    /// piece's local hour and its second offsets within that hour.
    public static func split(from: Int, to: Int, in calendar: Calendar) -> [(LocalHour, Range<Int>)] {
        var pieces: [(LocalHour, Range<Int>)] = []
        var at = from
        var day: (name: String, start: Int, end: Int)?
        // Bounded: each round moves `at` to the end of an hour (or a day), at least 1 second forward.
        while at < to {
            if day == nil || at >= day!.end || at < day!.start {
                let instant = Date(timeIntervalSince1970: TimeInterval(at))
                let start = calendar.startOfDay(for: instant)
                let next = calendar.date(byAdding: .day, value: 1, to: start.addingTimeInterval(12 * 3600)).map(
                    calendar.startOfDay(for:))
                let end = Int((next ?? start.addingTimeInterval(86_400)).timeIntervalSince1970.rounded(.down))
                day = (
                    self.day(of: start, in: calendar), Int(start.timeIntervalSince1970.rounded(.down)), max(end, at + 1)
                )
            }
            let d = day!
            let hour = (at - d.start) / 3600
            let hourStart = d.start + hour * 3600
            let pieceEnd = min(to, hourStart + 3600, d.end)
            pieces.append(
                (LocalHour(day: d.name, hour: hour, start: hourStart), (at - hourStart)..<(pieceEnd - hourStart)))
            at = pieceEnd
        }
        return pieces
    }
}
