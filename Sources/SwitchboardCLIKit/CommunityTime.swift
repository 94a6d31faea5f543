//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

/// Dates and times of communities' events as the terminal client reads and shows them (pure).
public enum CommunityTime {
    /// A protocol timestamp (`2026-11-23T01:02:03.456Z`, also without fractional seconds or with an offset).
    public static func instant(_ wire: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: wire) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: wire)
    }

    /// The protocol's timestamp of `date` (UTC, milliseconds).
    public static func wire(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        return f.string(from: date)
    }

    /// What a user types for a start or an end: a full timestamp with `Z` or an offset, or a local date and time
    /// in `zone`: `2026-12-01 14:30`, `2026-12-01T14:30`, with or without seconds.
    public static func parse(_ text: String, in zone: TimeZone) -> Date? {
        let t = text.trimmingCharacters(in: .whitespaces)
        if t.hasSuffix("Z") || t.range(of: #"[+-]\d\d:?\d\d$"#, options: .regularExpression) != nil, t.count > 16 {
            if let d = instant(t) { return d }
        }
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        for format in ["yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss"] {
            f.dateFormat = format
            if let d = f.date(from: t) { return d }
        }
        return nil
    }

    /// `date` formatted with `format` (en_US_POSIX) in `zone`.
    public static func format(_ date: Date, _ format: String, in zone: TimeZone) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = zone
        f.dateFormat = format
        return f.string(from: date)
    }

    /// A zone by IANA name; nil for an unknown one.
    public static func zone(_ name: String?) -> TimeZone? {
        guard let name, !name.isEmpty else { return nil }
        return TimeZone(identifier: name)
    }

    /// This machine's zone name (`TZ`, else the system's), for events created here.
    public static func localZoneName(environment: [String: String]) -> String {
        if let tz = environment["TZ"], TimeZone(identifier: tz) != nil { return tz }
        return TimeZone.current.identifier
    }

    /// An event's times in `zone`: `Sat 28 Nov 2026 14:00–16:00`, or both dates when it spans days.
    public static func span(startsAt: String, endsAt: String, in zone: TimeZone) -> String {
        guard let s = instant(startsAt), let e = instant(endsAt) else { return "\(startsAt)–\(endsAt)" }
        let sameDay = format(s, "yyyy-MM-dd", in: zone) == format(e, "yyyy-MM-dd", in: zone)
        return format(s, "EEE d MMM yyyy HH:mm", in: zone) + "–"
            + (sameDay ? format(e, "HH:mm", in: zone) : format(e, "EEE d MMM HH:mm", in: zone))
    }

    /// An event's hours on the calendar day `date` (`YYYY-MM-DD` in `zone`): `14:00–16:00`, `…–02:00` when it began
    /// on an earlier day, `22:00–…` when it ends on a later one, `all day` when both.
    public static func hours(startsAt: String, endsAt: String, on date: String, in zone: TimeZone) -> String {
        guard let s = instant(startsAt), let e = instant(endsAt) else { return "" }
        let startsBefore = format(s, "yyyy-MM-dd", in: zone) < date
        let endsAfter = format(e, "yyyy-MM-dd", in: zone) > date
        if startsBefore && endsAfter { return "all day" }
        return (startsBefore ? "…" : format(s, "HH:mm", in: zone)) + "–"
            + (endsAfter ? "…" : format(e, "HH:mm", in: zone))
    }
}

/// A calendar month as text: a header, the weekdays from the locale's first day, and the weeks, with today in
/// brackets and days that have events starred (pure; dates are `YYYY-MM-DD`).
public enum CalendarGrid {
    private static let weekdayNames = ["Su", "Mo", "Tu", "We", "Th", "Fr", "Sa"]
    private static let monthNames = [
        "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
        "December",
    ]

    /// (year, month, day) of `YYYY-MM-DD`.
    public static func components(_ date: String) -> (year: Int, month: Int, day: Int)? {
        let parts = date.split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        return (y, m, d)
    }

    /// 1 = Sunday ... 7 = Saturday, of a date (proleptic Gregorian).
    public static func weekday(_ date: String) -> Int? {
        guard let (y, m, d) = components(date) else { return nil }
        // Zeller's congruence, shifted so that Sunday is 1.
        let (yy, mm) = m < 3 ? (y - 1, m + 12) : (y, m)
        let k = yy % 100, j = yy / 100
        let h = (d + (13 * (mm + 1)) / 5 + k + k / 4 + j / 4 + 5 * j) % 7  // 0 = Saturday
        return (h + 6) % 7 + 1
    }

    /// Days in a month of a year.
    public static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The lines of the month that holds `date`.
    /// - Parameters:
    ///   - firstWeekday: 1 = Sunday ... 7 = Saturday (the server's `first_weekday` for the locale).
    ///   - today: today's date in the calendar's zone (bracketed when in this month).
    ///   - marked: dates with events (starred).
    public static func month(containing date: String, firstWeekday: Int, today: String, marked: Set<String>) -> [String]
    {
        guard let (y, m, _) = components(date) else { return [] }
        let first = String(format: "%04d-%02d-01", y, m)
        let firstDay: Int = max(1, min(7, firstWeekday))
        let startColumn: Int = ((weekday(first) ?? 1) - firstDay + 7) % 7
        var lines: [String] = [monthNames[m - 1] + " " + String(y)]
        var header = ""
        for k in 0..<7 { header += " " + weekdayNames[(firstDay - 1 + k) % 7] + "  " }
        lines.append(header.trimmingTrailing())
        var row = String(repeating: "     ", count: startColumn)
        var column = startColumn
        for d in 1...daysIn(year: y, month: m) {
            let key = String(format: "%04d-%02d-%02d", y, m, d)
            let number = String(format: "%2d", d)
            let isToday = key == today
            let star = marked.contains(key) ? "*" : " "
            let cell = isToday ? "[" + number + "]" + star : " " + number + star + " "
            row += cell
            column += 1
            if column == 7 {
                lines.append(row.trimmingTrailing())
                row = ""
                column = 0
            }
        }
        if !row.isEmpty { lines.append(row.trimmingTrailing()) }
        return lines
    }

    /// `Tue 24 Nov 2026` for a `YYYY-MM-DD` date.
    public static func dayTitle(_ date: String) -> String {
        guard let (y, m, d) = components(date), let w = weekday(date) else { return date }
        let names = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        return "\(names[w - 1]) \(d) \(monthNames[m - 1].prefix(3)) \(y)"
    }
}

extension String {
    func trimmingTrailing() -> String {
        var s = self
        while s.last == " " { s.removeLast() }
        return s
    }
}
