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

/// Active seconds of one hour: sorted, disjoint, non-adjacent half-open ranges of second offsets from the hour's start.
public struct SecondSpans: Sendable, Equatable {
    public private(set) var ranges: [Range<Int>] = []

    public init(_ ranges: [Range<Int>] = []) {
        for r in ranges { insert(r) }
    }

    /// Adds a range (a union: seconds already present count once).
    public mutating func insert(_ range: Range<Int>) {
        guard !range.isEmpty else { return }
        var lower = range.lowerBound
        var upper = range.upperBound
        var kept: [Range<Int>] = []
        kept.reserveCapacity(ranges.count + 1)
        var placed = false
        for r in ranges {
            if r.upperBound < lower {
                kept.append(r)
            } else if r.lowerBound > upper {
                if !placed {
                    kept.append(lower..<upper)
                    placed = true
                }
                kept.append(r)
            } else {
                lower = min(lower, r.lowerBound)
                upper = max(upper, r.upperBound)
            }
        }
        if !placed { kept.append(lower..<upper) }
        ranges = kept
    }

    public mutating func formUnion(_ other: SecondSpans) {
        for r in other.ranges { insert(r) }
    }

    /// The parts of `range` these spans do not cover, in order.
    public func gaps(in range: Range<Int>) -> [Range<Int>] {
        var out: [Range<Int>] = []
        var at = range.lowerBound
        for r in ranges where r.upperBound > at {
            if r.lowerBound >= range.upperBound { break }
            if r.lowerBound > at { out.append(at..<r.lowerBound) }
            at = max(at, r.upperBound)
            if at >= range.upperBound { break }
        }
        if at < range.upperBound { out.append(at..<range.upperBound) }
        return out
    }

    /// The number of seconds covered.
    public var total: Int { ranges.reduce(0) { $0 + $1.count } }

    /// PostgreSQL's text form of an `int4multirange`: `{[0,10),[20,30)}`.
    public var sqlLiteral: String {
        "{" + ranges.map { "[\($0.lowerBound),\($0.upperBound))" }.joined(separator: ",") + "}"
    }

    /// Reads PostgreSQL's text form of an `int4multirange` of canonical `[a,b)` ranges; nil when malformed.
    public init?(sqlLiteral text: String) {
        guard text.hasPrefix("{"), text.hasSuffix("}") else { return nil }
        let body = text.dropFirst().dropLast()
        guard !body.isEmpty else { return }
        for part in body.split(separator: ")", omittingEmptySubsequences: true) {
            var item = part[...]
            if item.hasPrefix(",") { item = item.dropFirst() }
            guard item.hasPrefix("[") else { return nil }
            let bounds = item.dropFirst().split(separator: ",")
            guard bounds.count == 2, let a = Int(bounds[0]), let b = Int(bounds[1]), a <= b else { return nil }
            insert(a..<b)
        }
    }
}

/// One hour of a user's local day: the local date (`YYYY-MM-DD`), the hour's index from local midnight (0 ... 24: a
/// day of 25 hours has an index 24; hours are counted from midnight, so the repeated hour of an autumn DST change has
/// its own index), and the instant it starts (seconds since 1970), which tells the same local hour of two zones
/// apart (a user who changed zone) and places stored seconds in real time.
public struct LocalHour: Hashable, Sendable, Comparable {
    public var day: String
    public var hour: Int
    public var start: Int
    public init(day: String, hour: Int, start: Int) {
        self.day = day
        self.hour = hour
        self.start = start
    }
    public static func < (a: LocalHour, b: LocalHour) -> Bool { (a.day, a.hour, a.start) < (b.day, b.hour, b.start) }
}

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

/// Active time per local hour: intervals (any device, any node) in, seconds per day and per hour out, each
/// second counted once. Pure; the caller says which zone an interval is recorded in.
public struct ActiveHoursAccumulator: Sendable {
    public private(set) var hours: [LocalHour: SecondSpans] = [:]

    public init() {}

    /// Adds the connected interval `[from, to)` (fractions of a second dropped), split in `zone`.
    public mutating func add(from: Date, to: Date, zone: TimeZone) {
        let a = Int(from.timeIntervalSince1970.rounded(.down))
        let b = Int(to.timeIntervalSince1970.rounded(.down))
        for (hour, range) in ActiveHoursCalendar.split(from: a, to: b, in: ActiveHoursCalendar.calendar(zone)) {
            add(hour, SecondSpans([range]))
        }
    }

    /// Adds spans already split (read back from storage).
    public mutating func add(_ hour: LocalHour, _ spans: SecondSpans) {
        hours[hour, default: SecondSpans()].formUnion(spans)
    }

    /// Adds `[from, to)` split in `zone`, leaving out the seconds `covered` (absolute: seconds since 1970) already
    /// holds, whatever zone they were filed in (a read: stored time plus time not yet written).
    public mutating func add(from: Date, to: Date, zone: TimeZone, except covered: SecondSpans) {
        let a = Int(from.timeIntervalSince1970.rounded(.down))
        let b = Int(to.timeIntervalSince1970.rounded(.down))
        guard a < b else { return }
        let calendar = ActiveHoursCalendar.calendar(zone)
        for gap in covered.gaps(in: a..<b) {
            for (hour, range) in ActiveHoursCalendar.split(from: gap.lowerBound, to: gap.upperBound, in: calendar) {
                add(hour, SecondSpans([range]))
            }
        }
    }

    /// Every second held, as absolute ranges (seconds since 1970).
    public var absolute: SecondSpans {
        var out = SecondSpans()
        for (hour, spans) in hours {
            for r in spans.ranges { out.insert((hour.start + r.lowerBound)..<(hour.start + r.upperBound)) }
        }
        return out
    }

    /// Active seconds of a local date.
    public func seconds(on day: String) -> Int {
        hours.reduce(0) { $0 + ($1.key.day == day ? $1.value.total : 0) }
    }

    /// Active seconds per local hour of a date in `zone` (23, 24 or 25 entries).
    public func hourly(on day: String, zone: TimeZone) -> [Int] {
        let count = ActiveHoursCalendar.hourCount(of: day, in: ActiveHoursCalendar.calendar(zone))
        var out = [Int](repeating: 0, count: count)
        for (key, spans) in hours where key.day == day {
            if key.hour < count { out[key.hour] += spans.total } else { out[count - 1] += spans.total }
        }
        return out
    }

    /// Seconds per date (dates with activity only).
    public var daily: [String: Int] {
        var out: [String: Int] = [:]
        for (key, spans) in hours { out[key.day, default: 0] += spans.total }
        return out
    }
}

/// One user's connected interval to record: `[from, to)`.
public struct ActiveInterval: Sendable, Equatable {
    public var userId: Int64
    public var from: Date
    public var to: Date
    public init(userId: Int64, from: Date, to: Date) {
        self.userId = userId
        self.from = from
        self.to = to
    }
}

/// Which users are connected, and since when, as a pure state machine with an injected wall clock (the `now`
/// arguments). A node records the union of its own devices' connections (`local`); it also follows the other
/// nodes' devices to answer "connected since" for the open interval of a read.
public struct ActiveTimeTracker: Sendable {
    struct UserState: Sendable {
        var local = SmallIDSet()
        var remote = SmallIDSet()
        /// When the user's current connection (any node) began.
        var since: Date?
        /// The start of the part of the open local interval not yet taken for recording.
        var localFrom: Date?
    }

    private var users: [Int64: UserState] = [:]
    /// Finished local intervals not yet taken, oldest first.
    private var closed: [ActiveInterval] = []
    /// Most finished intervals kept waiting (the oldest are dropped past it, counted in `dropped`).
    public let maxPending: Int
    public private(set) var dropped = 0

    public init(maxPending: Int = 100_000) {
        self.maxPending = max(1, maxPending)
    }

    /// A device connected; `local` when this node serves it.
    public mutating func connect(userId: Int64, device: UInt64, local: Bool, now: Date) {
        var state = users.removeValue(forKey: userId) ?? UserState()  // out of the dictionary: no copy of its sets
        if state.local.isEmpty && state.remote.isEmpty { state.since = now }
        if local {
            if state.local.isEmpty { state.localFrom = now }
            state.local.insert(device)
        } else {
            state.remote.insert(device)
        }
        users[userId] = state
    }

    /// A device disconnected; the user's last local device closes its local interval.
    public mutating func disconnect(userId: Int64, device: UInt64, now: Date) {
        guard var state = users.removeValue(forKey: userId) else { return }
        if state.local.remove(device), state.local.isEmpty, let from = state.localFrom {
            if now > from { append(ActiveInterval(userId: userId, from: from, to: now)) }
            state.localFrom = nil
        } else {
            state.remote.remove(device)
        }
        users[userId] = state.local.isEmpty && state.remote.isEmpty ? nil : state
    }

    private mutating func append(_ interval: ActiveInterval) {
        closed.append(interval)
        if closed.count > maxPending {
            let excess = closed.count - maxPending
            closed.removeFirst(excess)
            dropped += excess
        }
    }

    /// Takes what is to be recorded: the finished intervals and every open local interval up to `now` (which then
    /// continues from `now`). Only `user`'s when given.
    public mutating func take(now: Date, user: Int64? = nil) -> [ActiveInterval] {
        var out: [ActiveInterval] = []
        if let user {
            out = closed.filter { $0.userId == user }
            closed.removeAll { $0.userId == user }
        } else {
            out = closed
            closed = []
        }
        for (id, state) in users where user == nil || id == user {
            guard let from = state.localFrom, now > from else { continue }
            out.append(ActiveInterval(userId: id, from: from, to: now))
            users[id]!.localFrom = now
        }
        return out
    }

    /// Puts back intervals whose recording failed (bounded like the others).
    public mutating func putBack(_ intervals: [ActiveInterval]) {
        for interval in intervals { append(interval) }
    }

    /// What a read adds to the stored time of a user: its finished intervals not yet recorded, and its open
    /// interval (any node) up to `now`.
    public func unrecorded(of userId: Int64, now: Date) -> [ActiveInterval] {
        var out = closed.filter { $0.userId == userId }
        if let since = users[userId]?.since, now > since {
            out.append(ActiveInterval(userId: userId, from: since, to: now))
        }
        return out
    }

    /// Finished intervals waiting to be taken.
    public var pendingCount: Int { closed.count }
    /// Users with a device on this node.
    public var localUserCount: Int { users.values.filter { !$0.local.isEmpty }.count }
}
