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
