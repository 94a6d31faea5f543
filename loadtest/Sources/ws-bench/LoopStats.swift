//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Histogram

/// Per-loop results, confined to that loop's queue.
final class LoopStats: @unchecked Sendable {
    // @unchecked Sendable: mutated only on its loop's queue; read after the run has stopped.
    var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    var roundTrips = 0
    var errors = 0
    var open = 0
}
