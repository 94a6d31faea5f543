//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Active-hours statistics (docs/protocol.md, "Active hours"): a user's connected time (any device, counted once) per
// day and per hour in the user's time zone.

extension Ops {
    /// The active-hours ops.
    public static let activeHours: [any ProtocolOperation.Type] = [StatsActiveHours.self, StatsActiveDay.self]

    /// `stats.active_hours {user_id?, from?, to?}` -> `{user_id, time_zone, since, today, days}`.
    public enum StatsActiveHours: ProtocolOperation {
        public static let name = "stats.active_hours"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// Oneself when absent, or a friend.
            public var userId: Int64?
            /// First date (`YYYY-MM-DD`, inclusive); default 29 days before `to`.
            public var from: String?
            /// Last date (inclusive); default today in the user's zone. At most 366 days from `from`.
            public var to: String?
            public init(userId: Int64? = nil, from: String? = nil, to: String? = nil) {
                self.userId = userId
                self.from = from
                self.to = to
            }
        }
        public typealias Result = ActiveHoursResult
    }

    /// `stats.active_day {date, user_id?}` -> `{date, seconds, hours}`.
    public enum StatsActiveDay: ProtocolOperation {
        public static let name = "stats.active_day"
        public static let stateChanging = false
        public static let idempotent = true
        public struct Parameters: Codable, Sendable, Equatable {
            /// The local date (`YYYY-MM-DD`) in the user's zone.
            public var date: String
            /// Oneself when absent, or a friend.
            public var userId: Int64?
            public init(date: String, userId: Int64? = nil) {
                self.date = date
                self.userId = userId
            }
        }
        public typealias Result = ActiveDayResult
    }
}

/// One date of the series: its connected seconds.
public struct ActiveHoursDay: Codable, Sendable, Equatable {
    public var date: String
    public var seconds: Int
    public init(date: String, seconds: Int) {
        self.date = date
        self.seconds = seconds
    }
}

/// The reply to `stats.active_hours`: every date of the range from the later of `from` and `since`, zeros included.
public struct ActiveHoursResult: Codable, Sendable, Equatable {
    public var userId: Int64
    /// The user's IANA zone (`UTC` when never set).
    public var timeZone: String
    /// The registration date in that zone.
    public var since: String
    /// Today in that zone.
    public var today: String
    public var days: [ActiveHoursDay]
    public init(userId: Int64, timeZone: String, since: String, today: String, days: [ActiveHoursDay]) {
        self.userId = userId
        self.timeZone = timeZone
        self.since = since
        self.today = today
        self.days = days
    }
}

/// The reply to `stats.active_day`: the date's seconds and the seconds of each local hour from midnight (24
/// entries, 23 or 25 on a DST change).
public struct ActiveDayResult: Codable, Sendable, Equatable {
    public var date: String
    public var seconds: Int
    public var hours: [Int]
    public init(date: String, seconds: Int, hours: [Int]) {
        self.date = date
        self.seconds = seconds
        self.hours = hours
    }
}
