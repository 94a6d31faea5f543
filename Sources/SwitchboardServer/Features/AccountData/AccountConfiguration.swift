//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardWebSocket
import Synchronization

/// Settings of account deletion and data export.
public struct AccountConfiguration: Sendable {
    /// Where export archives are written (nil: `exports` in the data folder). In a cluster every node must see the
    /// same folder (a shared volume), since any node may serve the download.
    public var exportDirectory: String? = nil
    /// Largest export archive, in bytes (collected data beyond it fails the export with `too_large`).
    public var exportMaxBytes = 256 * 1024 * 1024
    /// Seconds a ready export stays downloadable before its file is removed.
    public var exportTTL: Double = 24 * 3600
    /// Exports one user may request in 24 hours (one at a time, always).
    public var exportsPerDay = 3
    /// Rows a deletion batch changes at most (each batch is one transaction).
    public var deletionBatchSize = 500
    /// Seconds to wait between deletion batches (0 in production; tests slow a job down with it).
    public var deletionBatchPause: Double = 0
    /// Export downloads served at once (each holds its archive in memory); 503 with `Retry-After` beyond.
    public var maxConcurrentDownloads = 4
    /// Seconds between sweeps (unfinished deletions resumed, interrupted exports rebuilt, expired ones removed).
    public var sweepInterval: Double = 60
    public init() {}
}
