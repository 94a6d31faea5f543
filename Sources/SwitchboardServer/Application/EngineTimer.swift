//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import SwitchboardTransport

/// A scheduled `EngineClock` callback.
protocol EngineTimer: Sendable {
    /// Stops the callback if it has not run yet (call on the queue it was scheduled on).
    func cancel()
}
