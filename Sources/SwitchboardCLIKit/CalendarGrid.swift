//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

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
