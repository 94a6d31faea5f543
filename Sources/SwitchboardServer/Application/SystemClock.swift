//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import SwitchboardTransport

/// The real clock: `EventLoop.now()` and Dispatch timers.
struct SystemClock: EngineClock {
    func now() -> UInt64 { EventLoop.now() }

    func schedule(at deadline: UInt64, on queue: DispatchQueue, _ fire: @escaping @Sendable () -> Void)
        -> any EngineTimer
    {
        let t = DispatchSource.makeTimerSource(queue: queue)
        let now = EventLoop.now()
        t.schedule(deadline: .now() + .nanoseconds(Int(min(deadline > now ? deadline - now : 0, UInt64(Int.max)))))
        t.setEventHandler(handler: fire)
        t.resume()
        return DispatchEngineTimer(source: t)
    }
}

private struct DispatchEngineTimer: EngineTimer, @unchecked Sendable {
    // @unchecked Sendable: the source is only cancelled on its queue.
    let source: any DispatchSourceTimer
    func cancel() { source.cancel() }
}
