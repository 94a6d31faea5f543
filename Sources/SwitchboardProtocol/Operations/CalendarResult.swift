//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `calendar.get`.
public struct CalendarResult: Codable, Sendable, Equatable {
    public var range: String
    public var timeZone: String
    /// 1 = Sunday ... 7 = Saturday.
    public var firstWeekday: Int
    /// Today's date in the zone.
    public var today: String
    /// The range's first and last dates (inclusive).
    public var from: String
    public var to: String
    /// The range's instants (`ends_at` exclusive).
    public var startsAt: String
    public var endsAt: String
    /// A date inside the previous and the next range (their first dates).
    public var previous: String?
    public var next: String?
    /// The days that have events, in order.
    public var days: [CalendarDay]
    /// The joined events touching the range, by start.
    public var events: [EventInfo]

    public init(
        range: String, timeZone: String, firstWeekday: Int, today: String, from: String, to: String, startsAt: String,
        endsAt: String,
        previous: String?, next: String?, days: [CalendarDay], events: [EventInfo]
    ) {
        self.range = range
        self.timeZone = timeZone
        self.firstWeekday = firstWeekday
        self.today = today
        self.from = from
        self.to = to
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.previous = previous
        self.next = next
        self.days = days
        self.events = events
    }
}
