//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
