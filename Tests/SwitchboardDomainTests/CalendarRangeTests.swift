//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardProtocol
import Testing

@testable import SwitchboardDomain

/// The pure calendar code behind `calendar.get`: ranges in three zones across daylight-saving changes in each
/// direction, weeks across a year boundary, months, years, neighbours, today at an injected instant, events on
/// the days they touch, and the event status rule.
@Suite struct CalendarRangeTests {
    static let newYork = TimeZone(identifier: "America/New_York")!
    static let paris = TimeZone(identifier: "Europe/Paris")!
    static let sydney = TimeZone(identifier: "Australia/Sydney")!
    static let kolkata = TimeZone(identifier: "Asia/Kolkata")!

    /// An instant from the wire format (the injected clock).
    static func at(_ text: String) -> Date {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: text)!
    }

    static func date(_ text: String) -> LocalDate { LocalDate(text)! }

    static func range(
        _ kind: CalendarRange.Kind, _ anchor: String?, _ zone: TimeZone, locale: String = "en-US",
        now: String = "2026-06-15T12:00:00.000Z"
    )
        -> CalendarRange
    {
        CalendarRange(kind: kind, anchor: anchor.map(date), timeZone: zone, locale: locale, now: at(now))!
    }

    static func hours(_ r: CalendarRange) -> Double { r.endsAt.timeIntervalSince(r.startsAt) / 3600 }

    @Test func datesParseStrictlyAndCountWeekdays() {
        #expect(LocalDate("2026-11-24")?.description == "2026-11-24")
        #expect(LocalDate("2028-02-29") != nil)
        for bad in [
            "2026-02-29", "2026-13-01", "2026-00-10", "2026-1-01", "26-01-01", "2026-01-01T00", "0000-01-01",
            "2026/01/01", "",
        ] {
            #expect(LocalDate(bad) == nil, "\(bad)")
        }
        #expect(Self.date("1970-01-01").weekday == 5)  // Thursday
        #expect(Self.date("2026-11-24").weekday == 3)  // Tuesday
        #expect(Self.date("2026-12-31").adding(days: 1) == Self.date("2027-01-01"))
        #expect(Self.date("2028-02-28").adding(days: 1) == Self.date("2028-02-29"))
        #expect(Self.date("2026-03-01").adding(days: -1) == Self.date("2026-02-28"))
        #expect(Self.date("9999-12-31").adding(days: 1) == nil)
    }

    @Test func newYorkDaysAcrossBothChanges() {
        // 2026-03-08: clocks go forward at 02:00 (23 hours); 2026-11-01: back at 02:00 (25 hours).
        let spring = Self.range(.day, "2026-03-08", Self.newYork)
        #expect(spring.startsAt == Self.at("2026-03-08T05:00:00.000Z"))
        #expect(spring.endsAt == Self.at("2026-03-09T04:00:00.000Z"))
        #expect(Self.hours(spring) == 23)
        let autumn = Self.range(.day, "2026-11-01", Self.newYork)
        #expect(autumn.startsAt == Self.at("2026-11-01T04:00:00.000Z"))
        #expect(autumn.endsAt == Self.at("2026-11-02T05:00:00.000Z"))
        #expect(Self.hours(autumn) == 25)
        #expect(autumn.previous == Self.date("2026-10-31"))
        #expect(autumn.next == Self.date("2026-11-02"))
        // The week of the spring change (en-US: Sunday first) is 167 hours long.
        let week = Self.range(.week, "2026-03-11", Self.newYork)
        #expect(week.from == Self.date("2026-03-08"))
        #expect(week.to == Self.date("2026-03-14"))
        #expect(Self.hours(week) == 167)
    }

    @Test func parisDaysAcrossBothChanges() {
        // 2026-03-29 forward (23 hours), 2026-10-25 back (25 hours).
        let spring = Self.range(.day, "2026-03-29", Self.paris, locale: "fr-FR")
        #expect(spring.startsAt == Self.at("2026-03-28T23:00:00.000Z"))
        #expect(spring.endsAt == Self.at("2026-03-29T22:00:00.000Z"))
        #expect(Self.hours(spring) == 23)
        let autumn = Self.range(.day, "2026-10-25", Self.paris, locale: "fr-FR")
        #expect(autumn.startsAt == Self.at("2026-10-24T22:00:00.000Z"))
        #expect(autumn.endsAt == Self.at("2026-10-25T23:00:00.000Z"))
        #expect(Self.hours(autumn) == 25)
        // The month of the autumn change: 31 days and one hour.
        let month = Self.range(.month, "2026-10-25", Self.paris, locale: "fr-FR")
        #expect(month.from == Self.date("2026-10-01"))
        #expect(month.to == Self.date("2026-10-31"))
        #expect(Self.hours(month) == 31 * 24 + 1)
    }

    @Test func sydneyDaysAcrossBothChanges() {
        // Southern hemisphere: 2026-04-05 back (25 hours), 2026-10-04 forward (23 hours).
        let autumn = Self.range(.day, "2026-04-05", Self.sydney, locale: "en-AU")
        #expect(autumn.startsAt == Self.at("2026-04-04T13:00:00.000Z"))
        #expect(autumn.endsAt == Self.at("2026-04-05T14:00:00.000Z"))
        #expect(Self.hours(autumn) == 25)
        let spring = Self.range(.day, "2026-10-04", Self.sydney, locale: "en-AU")
        #expect(spring.startsAt == Self.at("2026-10-03T14:00:00.000Z"))
        #expect(spring.endsAt == Self.at("2026-10-04T13:00:00.000Z"))
        #expect(Self.hours(spring) == 23)
    }

    @Test func kolkataHasNoChangeAndAHalfHourOffset() {
        let day = Self.range(.day, "2026-03-29", Self.kolkata, locale: "hi-IN")
        #expect(day.startsAt == Self.at("2026-03-28T18:30:00.000Z"))
        #expect(Self.hours(day) == 24)
    }

    @Test func firstWeekdayComesFromTheLocale() {
        #expect(Self.range(.week, "2026-11-24", Self.newYork, locale: "en-US").firstWeekday == 1)
        #expect(Self.range(.week, "2026-11-24", Self.paris, locale: "fr-FR").firstWeekday == 2)
        #expect(Self.range(.week, "2026-11-24", Self.paris, locale: "de-DE").firstWeekday == 2)
        #expect(Self.range(.week, "2026-11-24", Self.paris, locale: "en-GB").firstWeekday == 2)
        let us = Self.range(.week, "2026-11-24", Self.newYork, locale: "en-US")
        #expect(us.from == Self.date("2026-11-22"))  // Sunday
        let fr = Self.range(.week, "2026-11-29", Self.paris, locale: "fr-FR")  // a Sunday: the last day of its week
        #expect(fr.from == Self.date("2026-11-23"))
        #expect(fr.to == Self.date("2026-11-29"))
    }

    @Test func weeksAcrossTheYearBoundary() {
        // 2026-12-31 is a Thursday: the week containing it (ISO week 53 of 2026) runs into 2027.
        let fr = Self.range(.week, "2026-12-31", Self.paris, locale: "fr-FR")
        #expect(fr.from == Self.date("2026-12-28"))
        #expect(fr.to == Self.date("2027-01-03"))
        #expect(fr.previous == Self.date("2026-12-21"))
        #expect(fr.next == Self.date("2027-01-04"))
        #expect(fr.startsAt == Self.at("2026-12-27T23:00:00.000Z"))
        #expect(fr.endsAt == Self.at("2027-01-03T23:00:00.000Z"))
        // The same week anchored on New Year's Day.
        #expect(Self.range(.week, "2027-01-01", Self.paris, locale: "fr-FR") == fr)
        let us = Self.range(.week, "2027-01-01", Self.newYork, locale: "en-US")
        #expect(us.from == Self.date("2026-12-27"))
        #expect(us.to == Self.date("2027-01-02"))
        #expect(us.next == Self.date("2027-01-03"))
        // Stepping with next/previous lands back on the same week.
        let forward = Self.range(.week, us.next!.description, Self.newYork)
        #expect(Self.range(.week, forward.previous!.description, Self.newYork) == us)
    }

    @Test func monthsAndYears() {
        let leap = Self.range(.month, "2028-02-10", Self.kolkata)
        #expect(leap.from == Self.date("2028-02-01"))
        #expect(leap.to == Self.date("2028-02-29"))
        #expect(leap.previous == Self.date("2028-01-01"))
        #expect(leap.next == Self.date("2028-03-01"))
        let december = Self.range(.month, "2026-12-31", Self.sydney)
        #expect(december.next == Self.date("2027-01-01"))
        #expect(Self.range(.month, "2026-01-15", Self.sydney).previous == Self.date("2025-12-01"))
        let year = Self.range(.year, "2026-07-04", Self.newYork)
        #expect(year.from == Self.date("2026-01-01"))
        #expect(year.to == Self.date("2026-12-31"))
        #expect(year.startsAt == Self.at("2026-01-01T05:00:00.000Z"))
        #expect(year.endsAt == Self.at("2027-01-01T05:00:00.000Z"))
        #expect(Self.hours(year) == 365 * 24)
        #expect(year.previous == Self.date("2025-01-01"))
        #expect(year.next == Self.date("2027-01-01"))
    }

    @Test func todayDependsOnTheZoneAndIsTheDefaultAnchor() {
        let now = "2026-11-24T02:00:00.000Z"
        #expect(Self.range(.day, nil, Self.newYork, now: now).today == Self.date("2026-11-23"))
        #expect(Self.range(.day, nil, Self.newYork, now: now).from == Self.date("2026-11-23"))
        #expect(Self.range(.day, nil, Self.sydney, now: now).today == Self.date("2026-11-24"))
        #expect(Self.range(.day, nil, Self.kolkata, now: "2026-11-23T18:29:59.999Z").today == Self.date("2026-11-23"))
        #expect(Self.range(.day, nil, Self.kolkata, now: "2026-11-23T18:30:00.000Z").today == Self.date("2026-11-24"))
        // Today is reported whatever the range shown.
        #expect(Self.range(.month, "2027-05-01", Self.paris, now: now).today == Self.date("2026-11-24"))
    }

    @Test func eventsLandOnEveryDayTheyTouch() {
        let week = Self.range(.week, "2026-10-21", Self.paris, locale: "fr-FR")  // Mon 19 - Sun 25 October
        let spans = [
            // 22:00 Saturday to 02:00 Sunday local, across the change back to winter time.
            CalendarRange.Span(
                id: 1, startsAt: Self.at("2026-10-24T20:00:00.000Z"), endsAt: Self.at("2026-10-25T01:00:00.000Z")),
            // Ends exactly at local midnight: Tuesday only.
            CalendarRange.Span(
                id: 2, startsAt: Self.at("2026-10-20T20:00:00.000Z"), endsAt: Self.at("2026-10-20T22:00:00.000Z")),
            // Starts the week before, ends Monday morning: clipped to Monday.
            CalendarRange.Span(
                id: 3, startsAt: Self.at("2026-10-17T08:00:00.000Z"), endsAt: Self.at("2026-10-19T07:00:00.000Z")),
            // Entirely outside.
            CalendarRange.Span(
                id: 4, startsAt: Self.at("2026-10-26T08:00:00.000Z"), endsAt: Self.at("2026-10-26T09:00:00.000Z")),
            // Late on the Sunday of 25 hours (23:30 local, UTC+1).
            CalendarRange.Span(
                id: 5, startsAt: Self.at("2026-10-25T22:30:00.000Z"), endsAt: Self.at("2026-10-25T22:45:00.000Z")),
        ]
        let days = week.days(spans)
        #expect(days.map(\.date.description) == ["2026-10-19", "2026-10-20", "2026-10-24", "2026-10-25"])
        #expect(days.map(\.ids) == [[3], [2], [1], [1, 5]])
        // In New York the same first event is on Saturday only (16:00-21:00 local).
        let ny = Self.range(.week, "2026-10-21", Self.newYork)
        #expect(ny.days([spans[0]]) == [CalendarRange.Day(date: Self.date("2026-10-24"), ids: [1])])
        // A three-day event across the spring change in New York, in a month view.
        let march = Self.range(.month, "2026-03-01", Self.newYork)
        let long = CalendarRange.Span(
            id: 7, startsAt: Self.at("2026-03-07T15:00:00.000Z"), endsAt: Self.at("2026-03-09T15:00:00.000Z"))
        #expect(march.days([long]).map(\.date.description) == ["2026-03-07", "2026-03-08", "2026-03-09"])
        // An event spanning New Year's Eve in Sydney, seen in the year 2026: only its 2026 day.
        let year = Self.range(.year, "2026-01-01", Self.sydney)
        let newYear = CalendarRange.Span(
            id: 8, startsAt: Self.at("2026-12-31T12:00:00.000Z"), endsAt: Self.at("2026-12-31T14:00:00.000Z"))
        #expect(year.days([newYear]).map(\.date.description) == ["2026-12-31"])
        #expect(Self.range(.year, "2027-01-01", Self.sydney).days([newYear]).map(\.date.description) == ["2027-01-01"])
    }

    @Test func statusAtAnInjectedInstant() {
        let starts = Self.at("2026-11-24T10:00:00.000Z")
        let ends = Self.at("2026-11-24T12:00:00.000Z")
        func status(_ now: String, cancelled: Bool = false) -> EventStatus {
            EventStatus(startsAt: starts, endsAt: ends, cancelled: cancelled, now: Self.at(now))
        }
        #expect(status("2026-11-24T09:59:59.999Z") == .upcoming)
        #expect(status("2026-11-24T10:00:00.000Z") == .ongoing)
        #expect(status("2026-11-24T11:59:59.999Z") == .ongoing)
        #expect(status("2026-11-24T12:00:00.000Z") == .ended)
        #expect(status("2026-11-24T09:00:00.000Z", cancelled: true) == .cancelled)
        #expect(status("2026-11-25T09:00:00.000Z", cancelled: true) == .cancelled)
    }
}

@Suite struct WireInstantTests {
    @Test func parsesExactlyTheWireFormatAndRoundTrips() {
        for text in [
            "2026-11-23T01:02:03.456Z", "1970-01-01T00:00:00.000Z", "2028-02-29T23:59:59.999Z",
            "1969-12-31T23:59:59.001Z",
        ] {
            let date = WireInstant.parse(text)
            #expect(date.map(WireTimestamp.string(from:)) == text, "\(text)")
        }
        for bad in [
            "2026-11-23T01:02:03Z", "2026-11-23 01:02:03.456Z", "2026-02-30T00:00:00.000Z", "2026-11-23T24:00:00.000Z",
            "2026-11-23T01:60:00.000Z", "",
        ] {
            #expect(WireInstant.parse(bad) == nil, "\(bad)")
        }
    }
}
