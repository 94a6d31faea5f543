//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Community events, participants and the calendar of joined events (docs/protocol.md, "Events and calendar").

extension Ops {
    /// The event and calendar ops.
    public static let events: [any ProtocolOperation.Type] = [
        EventsCreate.self, EventsUpdate.self, EventsCancel.self, EventsList.self, EventsGet.self, EventsJoin.self,
        EventsDrop.self,
        EventsParticipants.self, CalendarGet.self,
    ]

    /// `events.create` (administrators): publishes an event to a community's members (`event.published`).
    public enum EventsCreate: ProtocolOperation {
        public static let name = "events.create"
        public static let stringParameters: [String: StringParameter] = ["description": .text]
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            /// 1-120 characters.
            public var title: String
            /// At most 4,000 characters.
            public var description: String?
            /// At most 200 characters.
            public var place: String?
            /// Wire timestamps; `ends_at` after `starts_at`, at most 31 days later.
            public var startsAt: String
            public var endsAt: String
            /// The organiser's IANA time zone.
            public var timeZone: String
            /// 1-100,000; absent: no limit.
            public var capacity: Int64?
            public init(
                communityId: Int64, title: String, description: String? = nil, place: String? = nil, startsAt: String,
                endsAt: String,
                timeZone: String, capacity: Int64? = nil
            ) {
                self.communityId = communityId
                self.title = title
                self.description = description
                self.place = place
                self.startsAt = startsAt
                self.endsAt = endsAt
                self.timeZone = timeZone
                self.capacity = capacity
            }
        }
        public typealias Result = EventResult
    }

    /// `events.update` (administrators): changes any of the fields (`capacity` null removes the limit); version + 1,
    /// `event.changed`.
    public enum EventsUpdate: ProtocolOperation {
        public static let name = "events.update"
        public static let stringParameters: [String: StringParameter] = ["description": .text]
        public static let stateChanging = true
        public static let idempotent = false
        public struct Parameters: Codable, Sendable, Equatable {
            public var eventId: Int64
            public var title: String?
            public var description: String?
            public var place: String?
            public var startsAt: String?
            public var endsAt: String?
            public var timeZone: String?
            /// The new capacity, or nil to remove it (only when `capacityGiven`).
            public var capacity: Int64?
            /// Whether the request had a `capacity` field (null included).
            public var capacityGiven: Bool

            public init(
                eventId: Int64, title: String? = nil, description: String? = nil, place: String? = nil,
                startsAt: String? = nil,
                endsAt: String? = nil, timeZone: String? = nil, capacity: Int64?? = .none
            ) {
                self.eventId = eventId
                self.title = title
                self.description = description
                self.place = place
                self.startsAt = startsAt
                self.endsAt = endsAt
                self.timeZone = timeZone
                self.capacity = capacity ?? nil
                self.capacityGiven = capacity != nil
            }

            enum CodingKeys: String, CodingKey {
                case eventId, title, description, place, startsAt, endsAt, timeZone, capacity
            }

            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                eventId = try c.decode(Int64.self, forKey: .eventId)
                title = try c.decodeIfPresent(String.self, forKey: .title)
                description = try c.decodeIfPresent(String.self, forKey: .description)
                place = try c.decodeIfPresent(String.self, forKey: .place)
                startsAt = try c.decodeIfPresent(String.self, forKey: .startsAt)
                endsAt = try c.decodeIfPresent(String.self, forKey: .endsAt)
                timeZone = try c.decodeIfPresent(String.self, forKey: .timeZone)
                capacityGiven = c.contains(.capacity)
                capacity = try c.decodeIfPresent(Int64.self, forKey: .capacity)
            }

            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(eventId, forKey: .eventId)
                try c.encodeIfPresent(title, forKey: .title)
                try c.encodeIfPresent(description, forKey: .description)
                try c.encodeIfPresent(place, forKey: .place)
                try c.encodeIfPresent(startsAt, forKey: .startsAt)
                try c.encodeIfPresent(endsAt, forKey: .endsAt)
                try c.encodeIfPresent(timeZone, forKey: .timeZone)
                if capacityGiven { try c.encode(capacity, forKey: .capacity) }
            }
        }
        public typealias Result = EventResult
    }

    /// `events.cancel` (administrators): the event stays, with status cancelled; `event.cancelled`.
    public enum EventsCancel: ProtocolOperation {
        public static let name = "events.cancel"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = EventIdParameters
        public typealias Result = EventResult
    }

    /// `events.list` (members, administrators): a community's upcoming events (not yet ended, earliest first) or
    /// past ones (ended, latest first), in pages.
    public enum EventsList: ProtocolOperation {
        public static let name = "events.list"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var communityId: Int64
            /// "upcoming" (default) or "past".
            public var direction: String?
            /// From the previous page's `next_cursor`.
            public var cursor: String?
            /// 1-100, default 20.
            public var limit: Int?
            public init(communityId: Int64, direction: String? = nil, cursor: String? = nil, limit: Int? = nil) {
                self.communityId = communityId
                self.direction = direction
                self.cursor = cursor
                self.limit = limit
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var events: [EventInfo]
            /// Null on the last page.
            public var nextCursor: String?
            public init(events: [EventInfo], nextCursor: String?) {
                self.events = events
                self.nextCursor = nextCursor
            }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(events, forKey: .events)
                try c.encode(nextCursor, forKey: .nextCursor)
            }
        }
    }

    /// `events.get` (members, administrators).
    public enum EventsGet: ProtocolOperation {
        public static let name = "events.get"
        public static let stateChanging = false
        public static let idempotent = true
        public typealias Parameters = EventIdParameters
        public typealias Result = EventResult
    }

    /// `events.join` (members): `event.joined` to the user's devices.
    public enum EventsJoin: ProtocolOperation {
        public static let name = "events.join"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = EventIdParameters
        public typealias Result = EventResult
    }

    /// `events.drop`: leaves an event not yet ended; `event.dropped` to the user's devices.
    public enum EventsDrop: ProtocolOperation {
        public static let name = "events.drop"
        public static let stateChanging = true
        public static let idempotent = false
        public typealias Parameters = EventIdParameters
        public typealias Result = EventResult
    }

    /// `events.participants` (members, administrators): who joined, in the order they joined, in pages.
    public enum EventsParticipants: ProtocolOperation {
        public static let name = "events.participants"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            public var eventId: Int64
            public var cursor: String?
            /// 1-200, default 50.
            public var limit: Int?
            public init(eventId: Int64, cursor: String? = nil, limit: Int? = nil) {
                self.eventId = eventId
                self.cursor = cursor
                self.limit = limit
            }
        }
        public struct Result: Codable, Sendable, Equatable {
            public var participants: [UserSummary]
            public var nextCursor: String?
            public init(participants: [UserSummary], nextCursor: String?) {
                self.participants = participants
                self.nextCursor = nextCursor
            }
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(participants, forKey: .participants)
                try c.encode(nextCursor, forKey: .nextCursor)
            }
        }
    }

    /// `calendar.get`: the user's joined events in a day, week, month or year of a time zone.
    public enum CalendarGet: ProtocolOperation {
        public static let name = "calendar.get"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// "day", "week", "month" or "year".
            public var range: String
            /// Any date inside the range (`YYYY-MM-DD`); default today in the zone.
            public var date: String?
            /// IANA zone; default the user's (UTC when unset).
            public var timeZone: String?
            /// BCP 47 locale deciding the week's first day; default the user's (en-US when unset).
            public var locale: String?
            public init(range: String, date: String? = nil, timeZone: String? = nil, locale: String? = nil) {
                self.range = range
                self.date = date
                self.timeZone = timeZone
                self.locale = locale
            }
        }
        public typealias Result = CalendarResult
    }
}
