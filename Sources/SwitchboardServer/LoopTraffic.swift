//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CSwitchboardSys
import CoreMetrics
import Foundation
import Metrics
import Prometheus
import SwitchboardProtocol
import SwitchboardStore
import Synchronization

/// Per-loop traffic counts, added to on the hot path without atomics and published once per sweep.
///
/// `@unchecked Sendable`: each instance belongs to exactly one loop; every field is read and written
/// only on that loop's queue (the sweep that publishes runs there too). The counts are `@exclusivity(unchecked)`:
/// each access is one addition or read, and no access overlaps another (two dynamic checks per delivery otherwise).
final class LoopTraffic: @unchecked Sendable {
    // protected by the owning loop's queue
    @exclusivity(unchecked) var framesIn = 0
    // protected by the owning loop's queue
    @exclusivity(unchecked) var framesOut = 0
    // protected by the owning loop's queue
    @exclusivity(unchecked) var bytesIn = 0
    // protected by the owning loop's queue
    @exclusivity(unchecked) var bytesOut = 0
    /// The loop's `writeCalls` when last published.
    // protected by the owning loop's queue
    var writeCallsPublished = 0
}
