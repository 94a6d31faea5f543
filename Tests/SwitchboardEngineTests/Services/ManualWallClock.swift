//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Synchronization

/// A wall clock that moves only when a test says so: the `now` of the services that decide by date (an event's
/// status, the calendar's today, what quitting a community drops).
final class ManualWallClock: Sendable {
    private let date: Mutex<Date>

    /// A clock at `start` (a fixed instant by default: 2031-03-12 10:00 UTC, a Wednesday).
    init(_ start: Date = Date(timeIntervalSince1970: 1_931_076_000)) {
        date = Mutex(start)
    }

    /// The clock's current instant.
    var now: Date { date.withLock { $0 } }

    /// The clock as a service takes it.
    var reading: @Sendable () -> Date { { self.now } }

    /// Moves the clock on by `seconds`.
    func advance(by seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
