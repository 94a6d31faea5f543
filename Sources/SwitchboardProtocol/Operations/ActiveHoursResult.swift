//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
