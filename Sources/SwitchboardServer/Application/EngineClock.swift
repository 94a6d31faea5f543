//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import SwitchboardTransport

/// The time of the engines (monotonic nanoseconds) and their one-shot timers; injected so that tests can
/// drive ring timeouts, grace periods and typing expiry without waiting.
protocol EngineClock: Sendable {
    /// Monotonic nanoseconds (as `EventLoop.now()`).
    func now() -> UInt64
    /// Runs `fire` on `queue` once `deadline` has passed, unless the returned timer is cancelled first.
    func schedule(at deadline: UInt64, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void)
        -> any EngineTimer
}
