//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
public import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore

/// Settings of active-hours recording (`docs/architecture.md`, "Active hours").
public struct ActiveHoursConfiguration: Sendable {
    /// Seconds between checkpoints of open intervals (what a crash can lose at most).
    public var checkpointInterval: Double = 300
    /// Seconds a finished interval waits so that others join its write (one batch).
    public var flushDelay: Double = 1
    /// Intervals one transaction records at most (a bigger flush is several transactions).
    public var batchSize = 500
    /// Finished intervals kept in memory while the database is unavailable (the oldest are dropped beyond it).
    public var maxPendingIntervals = 100_000
    /// The wall clock (tests inject one).
    public var now: @Sendable () -> Date = { Date() }
    public init() {}
}
