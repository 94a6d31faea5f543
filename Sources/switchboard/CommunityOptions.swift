//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Limits of communities, events, the calendar and courses of `serve` (`CommunityConfiguration` holds the rest).
struct CommunityOptions: ParsableArguments {
    @Option(
        help:
            """
            Items per page at most: communities, notifications, events and posts. [env: SWITCHBOARD_COMMUNITY_PAGE_MAX]
            """
    )
    var communityPageMax: Int = envValue("SWITCHBOARD_COMMUNITY_PAGE_MAX", as: Int.self) ?? 100

    @Option(
        help:
            """
            People per page at most: members, participants and course progress. [env: \
            SWITCHBOARD_COMMUNITY_PEOPLE_PAGE_MAX]
            """
    )
    var communityPeoplePageMax: Int = envValue("SWITCHBOARD_COMMUNITY_PEOPLE_PAGE_MAX", as: Int.self) ?? 200

    @Option(help: "The longest event in days. [env: SWITCHBOARD_MAX_EVENT_DAYS]")
    var maxEventDays: Int = envValue("SWITCHBOARD_MAX_EVENT_DAYS", as: Int.self) ?? 31

    @Option(help: "The largest capacity of an event. [env: SWITCHBOARD_MAX_EVENT_CAPACITY]")
    var maxEventCapacity: Int64 = envValue("SWITCHBOARD_MAX_EVENT_CAPACITY", as: Int64.self) ?? 100_000

    @Option(
        help:
            """
            Events in one calendar answer at most (beyond, the latest are left out). [env: \
            SWITCHBOARD_CALENDAR_MAX_EVENTS]
            """
    )
    var calendarMaxEvents: Int = envValue("SWITCHBOARD_CALENDAR_MAX_EVENTS", as: Int.self) ?? 5000

    @Option(
        help:
            """
            Announcements and lessons per core member per hour, also the burst (administrators are not limited). [env: \
            SWITCHBOARD_COMMUNITY_POST_RATE]
            """
    )
    var communityPostRate: Double = envValue("SWITCHBOARD_COMMUNITY_POST_RATE", as: Double.self) ?? 120

    @Option(help: "Longest announcement or lesson in characters. [env: SWITCHBOARD_MAX_POST_CHARACTERS]")
    var maxPostCharacters: Int = envValue("SWITCHBOARD_MAX_POST_CHARACTERS", as: Int.self) ?? 10_000

    @Option(help: "Longest community or event description in characters. [env: SWITCHBOARD_MAX_DESCRIPTION_CHARACTERS]")
    var maxDescriptionCharacters: Int = envValue("SWITCHBOARD_MAX_DESCRIPTION_CHARACTERS", as: Int.self) ?? 4000

    func validate() throws {
        guard communityPageMax >= 20, communityPeoplePageMax >= 50, (1...366).contains(maxEventDays),
            maxEventCapacity >= 1,
            calendarMaxEvents >= 1, communityPostRate > 0, maxPostCharacters >= 1, maxDescriptionCharacters >= 1
        else {
            throw ValidationError(
                """
                community limits: pages at least 20 (people 50), events 1-366 days, positive capacity, calendar size, \
                post rate and lengths
                """
            )
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.communities.maxPage = communityPageMax
        c.communities.maxPeoplePage = communityPeoplePageMax
        c.communities.maxEventDays = maxEventDays
        c.communities.maxEventCapacity = maxEventCapacity
        c.communities.maxCalendarEvents = calendarMaxEvents
        c.communities.publicationsPerHour = communityPostRate
        c.communities.maxPostCharacters = maxPostCharacters
        c.communities.maxDescriptionCharacters = maxDescriptionCharacters
    }
}
