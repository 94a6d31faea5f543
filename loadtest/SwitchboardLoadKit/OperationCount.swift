//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Counts of one kind of operation over a run.
public struct OperationCount: Codable, Sendable, Equatable {
    /// Scheduled by the plan (rate x duration).
    public var planned: Int
    /// Actually started (a generator that falls behind starts fewer).
    public var started: Int
    /// Completed as intended.
    public var succeeded: Int
    /// Failed: server errors by code, timeouts, lost connections, missing events.
    public var failed: Int

    public init(planned: Int = 0, started: Int = 0, succeeded: Int = 0, failed: Int = 0) {
        self.planned = planned
        self.started = started
        self.succeeded = succeeded
        self.failed = failed
    }
}
