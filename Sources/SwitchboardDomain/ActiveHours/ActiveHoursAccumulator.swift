//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

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
