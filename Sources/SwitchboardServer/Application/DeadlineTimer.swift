//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import SwitchboardTransport

/// One timer kept armed for the earliest deadline (monotonic nanoseconds of `clock`) of a state machine that
/// lives on `queue`: the presence tracker, the calls registry, a writer's typing indicators.
final class DeadlineTimer: @unchecked Sendable {
    // @unchecked Sendable: `timer`, `deadline` and `generation` are only touched on `queue` (asserted).
    let queue: DispatchQueue
    let clock: any EngineClock
    // protected by queue
    private var timer: (any EngineTimer)?
    // protected by queue
    private var deadline: UInt64?
    // protected by queue: numbers the armings, so that a cancelled timer that fires anyway does nothing
    private var generation: UInt64 = 0

    init(queue: DispatchQueue, clock: any EngineClock = SystemClock()) {
        self.queue = queue
        self.clock = clock
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
        generation &+= 1
        let armed = generation
        timer = clock.schedule(at: deadline, on: queue) { [weak self] in
            guard let self, self.generation == armed else { return }
            self.timer?.cancel()
            self.timer = nil
            self.deadline = nil
            fire()
        }
        self.deadline = deadline
    }

    /// Disarms the timer.
    func cancel() {
        dispatchPrecondition(condition: .onQueue(queue))
        timer?.cancel()
        timer = nil
        deadline = nil
        generation &+= 1
    }
}
