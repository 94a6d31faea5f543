//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import SwitchboardTransport

/// One `DispatchSourceTimer` kept armed for the earliest deadline (monotonic nanoseconds, as
/// `EventLoop.now()`) of a state machine that lives on `queue`: the presence tracker, the calls registry,
/// a writer's typing indicators.
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked Sendable: `timer` and `deadline` are only touched on `queue` (asserted).
    let queue: DispatchQueue
    // protected by queue
    private var timer: (any DispatchSourceTimer)?
    // protected by queue
    private var deadline: UInt64?

    init(queue: DispatchQueue) {
        self.queue = queue
    }

    /// Arms the timer for `deadline` (nil: disarms), replacing an earlier arming unless it is for the same
    /// instant. `fire` runs on `queue` once the deadline has passed.
    func arm(_ deadline: UInt64?, fire: @escaping @Sendable () -> Void) {
        dispatchPrecondition(condition: .onQueue(queue))
        guard let deadline else {
            cancel()
            return
        }
        if self.deadline == deadline, timer != nil { return }
        timer?.cancel()
        let t = DispatchSource.makeTimerSource(queue: queue)
        let now = EventLoop.now()
        t.schedule(deadline: .now() + .nanoseconds(Int(min(deadline > now ? deadline - now : 0, UInt64(Int.max)))))
        t.setEventHandler { [weak self] in
            self?.timer = nil
            self?.deadline = nil
            fire()
        }
        t.resume()
        timer = t
        self.deadline = deadline
    }

    /// Disarms the timer.
    func cancel() {
        dispatchPrecondition(condition: .onQueue(queue))
        timer?.cancel()
        timer = nil
        deadline = nil
    }
}
