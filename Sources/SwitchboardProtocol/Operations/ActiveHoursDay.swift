//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One date of the series: its connected seconds.
public struct ActiveHoursDay: Codable, Sendable, Equatable {
    public var date: String
    public var seconds: Int
    public init(date: String, seconds: Int) {
        self.date = date
        self.seconds = seconds
    }
}
