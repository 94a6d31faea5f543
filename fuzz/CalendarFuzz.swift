//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Fuzzes the calendar's parsers and ranges (issue 22): `LocalDate` (`YYYY-MM-DD`, every `date`/`from`/`to`
// parameter), `WireInstant.parse` (`starts_at`, `ends_at`) and `CalendarRange` built from them in a zone and locale
// the input picks, with the bucketing of events onto local days. Invariants: a parsed date prints back to the same
// text; a range starts before it ends, its first date is not after its last, it contains its anchor, and every day
// the bucketing returns lies inside the range.

import Foundation

private let zones = [
    "UTC", "Europe/Paris", "America/New_York", "Australia/Sydney", "Asia/Kolkata", "Pacific/Apia",
    "America/St_Johns", "Pacific/Chatham", "Africa/Casablanca", "Antarctica/Troll",
].compactMap(TimeZone.init(identifier:))
private let locales = ["en-US", "fr-FR", "de-DE", "ar-EG", "he-IL", "und", "", "x-private", "en_US_POSIX"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCalendar(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard bytes.count >= 12 else { return 0 }
    let text = String(decoding: bytes[12...], as: UTF8.self)
    if let date = LocalDate(text) {
        precondition(date.description == text, "\(text) parsed as \(date)")
    }
    let instant = WireInstant.parse(text)
    // The input's first bytes choose the range, the zone, the locale, "now" and two event offsets.
    let kind = CalendarRange.Kind.allCases[Int(bytes[0]) % CalendarRange.Kind.allCases.count]
    let zone = zones[Int(bytes[1]) % zones.count]
    let locale = locales[Int(bytes[2]) % locales.count]
    var seconds: Int64 = 0
    for b in bytes[3..<8] { seconds = seconds << 8 | Int64(b) }
    let now = Date(timeIntervalSince1970: Double(seconds % 253_402_300_799))  // up to 9999-12-31
    let anchor = LocalDate(text) ?? instant.flatMap { CalendarRange.date(of: $0, in: zone) }
    guard let range = CalendarRange(kind: kind, anchor: anchor, timeZone: zone, locale: locale, now: now) else {
        return 0
    }
    precondition(range.startsAt < range.endsAt && range.from <= range.to, "an empty or reversed range: \(range)")
    if let anchor { precondition(range.from <= anchor && anchor <= range.to, "\(anchor) outside its range \(range)") }
    let start = instant ?? range.startsAt
    let length = Double(Int(bytes[8]) << 16 | Int(bytes[9]) << 8 | Int(bytes[10])) * 60
    let spans = [
        CalendarRange.Span(id: 1, startsAt: start, endsAt: start.addingTimeInterval(max(1, length))),
        CalendarRange.Span(
            id: 2, startsAt: range.startsAt.addingTimeInterval(-Double(bytes[11]) * 3600), endsAt: range.endsAt),
    ]
    for day in range.days(spans) {
        precondition(range.from <= day.date && day.date <= range.to, "\(day.date) outside \(range.from)...\(range.to)")
    }
    return 0
}
