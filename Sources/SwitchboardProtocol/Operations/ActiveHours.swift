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
