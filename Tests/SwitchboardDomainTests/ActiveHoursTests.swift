//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardDomain
import Testing

private let utc = TimeZone(identifier: "UTC")!
private let paris = TimeZone(identifier: "Europe/Paris")!
private let newYork = TimeZone(identifier: "America/New_York")!

/// An instant from its ISO 8601 form (UTC).
private func at(_ text: String) -> Date {
    let f = ISO8601DateFormatter()
    f.formatOptions = [.withInternetDateTime]
    return f.date(from: text)!
}

@Suite("Active hours: accumulator, calendar, tracker")
struct ActiveHoursTests {
    @Test func spansUniteOverlapsAndAdjacentRangesAndRoundTripThroughSQLText() {
        var s = SecondSpans()
        s.insert(10..<20)
        s.insert(30..<40)
        s.insert(15..<32)
        #expect(s.ranges == [10..<40])
        s.insert(40..<45)
        s.insert(0..<5)
        #expect(s.ranges == [0..<5, 10..<45])
        #expect(s.total == 40)
        #expect(s.sqlLiteral == "{[0,5),[10,45)}")
        #expect(SecondSpans(sqlLiteral: "{[0,5),[10,45)}") == s)
        #expect(SecondSpans(sqlLiteral: "{}") == SecondSpans())
        #expect(SecondSpans(sqlLiteral: "[0,5)") == nil)
    }

    @Test func acrossMidnightTheTimeIsSplitBetweenTheTwoLocalDates() {
        var a = ActiveHoursAccumulator()
        // 23:30 to 00:45 in Paris (UTC+1 in January).
        a.add(from: at("2026-01-10T22:30:00Z"), to: at("2026-01-10T23:45:00Z"), zone: paris)
        #expect(a.seconds(on: "2026-01-10") == 1800)
        #expect(a.seconds(on: "2026-01-11") == 2700)
        let before = a.hourly(on: "2026-01-10", zone: paris)
        #expect(before.count == 24)
        #expect(before[23] == 1800)
        #expect(a.hourly(on: "2026-01-11", zone: paris)[0] == 2700)
        // The same interval in UTC falls on one date.
        var b = ActiveHoursAccumulator()
        b.add(from: at("2026-01-10T22:30:00Z"), to: at("2026-01-10T23:45:00Z"), zone: utc)
        #expect(b.daily == ["2026-01-10": 4500])
        #expect(b.hourly(on: "2026-01-10", zone: utc)[22] == 1800)
        #expect(b.hourly(on: "2026-01-10", zone: utc)[23] == 2700)
    }

    @Test func twoOverlappingDevicesAreCountedOnce() {
        var a = ActiveHoursAccumulator()
        a.add(from: at("2026-05-01T10:00:00Z"), to: at("2026-05-01T11:00:00Z"), zone: utc)
        a.add(from: at("2026-05-01T10:30:00Z"), to: at("2026-05-01T12:15:00Z"), zone: utc)
        #expect(a.seconds(on: "2026-05-01") == 2 * 3600 + 900)
        // Repeating an interval (a checkpoint written twice, two nodes) changes nothing.
        a.add(from: at("2026-05-01T10:00:00Z"), to: at("2026-05-01T11:00:00Z"), zone: utc)
        #expect(a.seconds(on: "2026-05-01") == 2 * 3600 + 900)
        #expect(a.hourly(on: "2026-05-01", zone: utc)[10...12] == [3600, 3600, 900])
    }

    @Test func daylightSavingDaysHave23And25Hours() {
        let calendar = ActiveHoursCalendar.calendar(paris)
        #expect(ActiveHoursCalendar.hourCount(of: "2026-03-29", in: calendar) == 23)
        #expect(ActiveHoursCalendar.hourCount(of: "2026-10-25", in: calendar) == 25)
        #expect(ActiveHoursCalendar.hourCount(of: "2026-10-26", in: calendar) == 24)
        #expect(ActiveHoursCalendar.hourCount(of: "2026-11-01", in: ActiveHoursCalendar.calendar(newYork)) == 25)

        // Connected the whole autumn day: 25 hours of 3,600 s, the repeated 02:00 hour counted as its own.
        var autumn = ActiveHoursAccumulator()
        autumn.add(from: at("2026-10-24T21:00:00Z"), to: at("2026-10-25T23:00:00Z"), zone: paris)
        #expect(autumn.seconds(on: "2026-10-25") == 25 * 3600)
        let hours = autumn.hourly(on: "2026-10-25", zone: paris)
        #expect(hours.count == 25)
        #expect(hours.allSatisfy { $0 == 3600 })

        // The spring day: 23 hours; local 01:30 to 03:30 is one hour of real time.
        var spring = ActiveHoursAccumulator()
        spring.add(from: at("2026-03-29T00:30:00Z"), to: at("2026-03-29T01:30:00Z"), zone: paris)
        #expect(spring.seconds(on: "2026-03-29") == 3600)
        let springHours = spring.hourly(on: "2026-03-29", zone: paris)
        #expect(springHours.count == 23)
        #expect(springHours[1] == 1800 && springHours[2] == 1800)
        var whole = ActiveHoursAccumulator()
        whole.add(from: at("2026-03-28T23:00:00Z"), to: at("2026-03-29T22:00:00Z"), zone: paris)
        #expect(whole.daily == ["2026-03-29": 23 * 3600])
    }

    @Test func aZoneChangeKeepsEarlierTimeOnTheDatesItWasRecordedOn() {
        var a = ActiveHoursAccumulator()
        // Recorded in UTC: 23:00-24:00 on the 1st.
        a.add(from: at("2026-06-01T23:00:00Z"), to: at("2026-06-02T00:00:00Z"), zone: utc)
        // Then the user moves to New York (UTC-4): 01:00-02:00Z is 21:00-22:00 local on the 1st.
        a.add(from: at("2026-06-02T01:00:00Z"), to: at("2026-06-02T02:00:00Z"), zone: newYork)
        #expect(a.daily == ["2026-06-01": 7200])
        let hours = a.hourly(on: "2026-06-01", zone: newYork)
        #expect(hours[21] == 3600 && hours[23] == 3600)
    }

    @Test func aReadAddsOnlyUnwrittenSecondsWhateverZoneTheStoredOnesWereFiledIn() {
        // Written in UTC: 10:00-11:00Z. Then the zone changed to Paris while connected since 10:00Z: the read's
        // open interval 10:00-11:30Z adds only 11:00-11:30Z (13:00-13:30 in Paris, UTC+2 in May).
        var stored = ActiveHoursAccumulator()
        stored.add(from: at("2026-05-01T10:00:00Z"), to: at("2026-05-01T11:00:00Z"), zone: utc)
        var read = stored
        read.add(from: at("2026-05-01T10:00:00Z"), to: at("2026-05-01T11:30:00Z"), zone: paris, except: stored.absolute)
        #expect(read.seconds(on: "2026-05-01") == 5400)
        #expect(read.hourly(on: "2026-05-01", zone: paris)[13] == 1800)
        // The same local hour filed in two zones is two hours of real time, both counted.
        var both = ActiveHoursAccumulator()
        both.add(from: at("2026-05-01T10:00:00Z"), to: at("2026-05-01T10:30:00Z"), zone: utc)
        both.add(from: at("2026-05-01T08:00:00Z"), to: at("2026-05-01T08:30:00Z"), zone: paris)
        #expect(both.hours.count == 2)
        #expect(both.seconds(on: "2026-05-01") == 3600)
        #expect(SecondSpans([0..<10, 20..<30]).gaps(in: 5..<40) == [10..<20, 30..<40])
        #expect(SecondSpans([0..<10]).gaps(in: 2..<8).isEmpty)
        #expect(SecondSpans().gaps(in: 2..<8) == [2..<8])
    }

    @Test func datesParseStrictlyAndCount() {
        #expect(ActiveHoursCalendar.parse("2026-02-28") != nil)
        #expect(ActiveHoursCalendar.parse("2026-02-29") == nil)
        #expect(ActiveHoursCalendar.parse("2028-02-29") != nil)
        #expect(ActiveHoursCalendar.parse("2026-1-01") == nil)
        #expect(ActiveHoursCalendar.parse("2026-13-01") == nil)
        #expect(ActiveHoursCalendar.parse("yesterday") == nil)
        #expect(ActiveHoursCalendar.adding(-29, to: "2026-03-01") == "2026-01-31")
        #expect(ActiveHoursCalendar.adding(1, to: "2026-12-31") == "2027-01-01")
        #expect(ActiveHoursCalendar.distance(from: "2025-12-31", to: "2026-12-31") == 365)
    }

    @Test func trackerRecordsTheUnionOfLocalDevicesWithAnInjectedClock() {
        var t = ActiveTimeTracker()
        let t0 = at("2026-05-01T10:00:00Z")
        t.connect(userId: 7, device: 1, local: true, now: t0)
        t.connect(userId: 7, device: 2, local: true, now: t0.addingTimeInterval(600))
        t.disconnect(userId: 7, device: 1, now: t0.addingTimeInterval(1200))
        #expect(t.pendingCount == 0)  // device 2 still connected: the interval stays open
        // A checkpoint takes the open part and continues from there.
        let first = t.take(now: t0.addingTimeInterval(1800))
        #expect(first == [ActiveInterval(userId: 7, from: t0, to: t0.addingTimeInterval(1800))])
        t.disconnect(userId: 7, device: 2, now: t0.addingTimeInterval(3000))
        #expect(
            t.take(now: t0.addingTimeInterval(4000)) == [
                ActiveInterval(userId: 7, from: t0.addingTimeInterval(1800), to: t0.addingTimeInterval(3000))
            ])
        #expect(t.take(now: t0.addingTimeInterval(5000)).isEmpty)
    }

    @Test func trackerRecordsOnlyLocalDevicesButReadsSeeTheOpenIntervalOfAnyNode() {
        var t = ActiveTimeTracker()
        let t0 = at("2026-05-01T10:00:00Z")
        t.connect(userId: 7, device: 1, local: false, now: t0)
        t.connect(userId: 7, device: 2, local: true, now: t0.addingTimeInterval(60))
        #expect(
            t.unrecorded(of: 7, now: t0.addingTimeInterval(120)) == [
                ActiveInterval(userId: 7, from: t0, to: t0.addingTimeInterval(120))
            ])
        #expect(
            t.take(now: t0.addingTimeInterval(120)) == [
                ActiveInterval(userId: 7, from: t0.addingTimeInterval(60), to: t0.addingTimeInterval(120))
            ])
        t.disconnect(userId: 7, device: 2, now: t0.addingTimeInterval(180))
        t.disconnect(userId: 7, device: 1, now: t0.addingTimeInterval(240))
        #expect(
            t.take(now: t0.addingTimeInterval(300)) == [
                ActiveInterval(userId: 7, from: t0.addingTimeInterval(120), to: t0.addingTimeInterval(180))
            ])
        #expect(t.unrecorded(of: 7, now: t0.addingTimeInterval(300)).isEmpty)
    }

    @Test func trackerKeepsABoundedNumberOfUnwrittenIntervals() {
        var t = ActiveTimeTracker(maxPending: 3)
        let t0 = at("2026-05-01T10:00:00Z")
        for i in 0..<5 {
            t.connect(userId: Int64(i), device: UInt64(i), local: true, now: t0)
            t.disconnect(userId: Int64(i), device: UInt64(i), now: t0.addingTimeInterval(10))
        }
        #expect(t.pendingCount == 3)
        #expect(t.dropped == 2)
        #expect(t.take(now: t0.addingTimeInterval(20)).map(\.userId) == [2, 3, 4])
    }
}
