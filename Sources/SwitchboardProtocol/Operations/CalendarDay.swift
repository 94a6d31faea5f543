//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A day of a calendar that has joined events.
public struct CalendarDay: Codable, Sendable, Equatable {
    /// `YYYY-MM-DD`.
    public var date: String
    public var eventIds: [Int64]
    public init(date: String, eventIds: [Int64]) {
        self.date = date
        self.eventIds = eventIds
    }
}
