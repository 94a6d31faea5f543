//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCLIKit
import Testing

@Suite("Community CLI: calendar grid and times")
struct CommunityCLITests {
    @Test("weekdays of known dates (1 = Sunday)")
    func weekdays() {
        #expect(CalendarGrid.weekday("2026-11-24") == 3)  // a Tuesday
        #expect(CalendarGrid.weekday("2026-11-01") == 1)  // a Sunday
        #expect(CalendarGrid.weekday("2000-02-29") == 3)  // a Tuesday
        #expect(CalendarGrid.weekday("2027-01-01") == 6)  // a Friday
        #expect(CalendarGrid.daysIn(year: 2028, month: 2) == 29)
        #expect(CalendarGrid.daysIn(year: 2100, month: 2) == 28)
    }

    @Test("a month grid starting on Monday marks today and the days with events")
    func monthGridMonday() {
        let lines = CalendarGrid.month(
            containing: "2026-11-10", firstWeekday: 2, today: "2026-11-24", marked: ["2026-11-28", "2026-11-24"])
        #expect(lines[0] == "November 2026")
        #expect(lines[1] == " Mo   Tu   We   Th   Fr   Sa   Su")
        // November 2026 starts on a Sunday: the seventh column.
        #expect(lines[2] == String(repeating: " ", count: 30) + "  1")
        #expect(lines[6] == " 23  [24]* 25   26   27   28*  29")
        #expect(lines[7] == " 30")
        #expect(lines.count == 8)  // header, weekdays, six rows (the 30th is a Monday)
    }

    @Test("a month grid starting on Sunday")
    func monthGridSunday() {
        let lines = CalendarGrid.month(containing: "2026-02-01", firstWeekday: 1, today: "2026-03-01", marked: [])
        #expect(lines[1].hasPrefix(" Su   Mo"))
        #expect(lines[2].hasPrefix("  1    2"))
        #expect(lines.count == 6)  // February 2026 fills exactly four weeks
        #expect(!lines.joined().contains("["))
    }

    @Test("typed local times become instants in the given zone; hours on a day across midnight")
    func times() throws {
        let paris = try #require(TimeZone(identifier: "Europe/Paris"))
        let d = try #require(CommunityTime.parse("2026-12-01 14:30", in: paris))
        #expect(CommunityTime.wire(d) == "2026-12-01T13:30:00.000Z")
        #expect(CommunityTime.parse("2026-12-01T13:30:00.000Z", in: paris) == d)
        #expect(CommunityTime.parse("tomorrow", in: paris) == nil)
        let start = "2026-12-31T21:00:00.000Z", end = "2027-01-01T01:00:00.000Z"
        #expect(CommunityTime.hours(startsAt: start, endsAt: end, on: "2026-12-31", in: paris) == "22:00–…")
        #expect(CommunityTime.hours(startsAt: start, endsAt: end, on: "2027-01-01", in: paris) == "…–02:00")
        #expect(CalendarGrid.dayTitle("2026-11-24") == "Tue 24 Nov 2026")
    }
}
