//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One hour of a user's local day: the local date (`YYYY-MM-DD`), the hour's index from local midnight (0 ... 24: a
/// day of 25 hours has an index 24; hours are counted from midnight, so the repeated hour of an autumn DST change has
/// its own index), and the instant it starts (seconds since 1970), which tells the same local hour of two zones
/// apart (a user who changed zone) and places stored seconds in real time.
public struct LocalHour: Hashable, Sendable, Comparable {
    public var day: String
    public var hour: Int
    public var start: Int
    public init(day: String, hour: Int, start: Int) {
        self.day = day
        self.hour = hour
        self.start = start
    }
    public static func < (a: LocalHour, b: LocalHour) -> Bool { (a.day, a.hour, a.start) < (b.day, b.hour, b.start) }
}
