//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CoreMetrics
import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore

/// How long the server keeps what it no longer needs (`--retain-*`); 0 days keeps it forever.
public struct RetentionSettings: Sendable, Equatable {
    /// Days an ended call's record (the call history) is kept.
    public var callRecordsDays: Int = 365
    /// Days a deleted message keeps what deletion left behind (client id, voice clip, reactions);
    /// the tombstone row itself stays, so histories keep their seqs.
    public var tombstonesDays: Int = 30
    /// Days a revoked (logged-out) session's row is kept.
    public var expiredSessionsDays: Int = 30
    /// Seconds between sweeps (the first runs a few seconds to a minute after start).
    public var sweepInterval: Double = 3600
    /// Rows one batch (one short transaction) removes at most.
    public var batchSize: Int = 500
    /// Seconds between two batches of a sweep (leaves the database to the requests).
    public var batchPause: Double = 0.05

    public init() {}

    /// Whether anything is to be swept at all.
    public var isEnabled: Bool { callRecordsDays > 0 || tombstonesDays > 0 || expiredSessionsDays > 0 }
}
