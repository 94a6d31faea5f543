//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The shared state of a ``WorkerPool``'s threads.
final class WorkerPoolState: @unchecked Sendable {
    // @unchecked Sendable: `idle`, `assigned`, `waiting`, `head` and `stopping` are only touched under `condition`;
    // `maxWaiting` is immutable.
    private let condition = NSCondition()
    let maxWaiting: Int
    // protected by condition: workers waiting for a job
    private var idle: [Int]
    // protected by condition: the job handed to an idle worker, by worker
    private var assigned: [WorkerPool.Job?]
    // protected by condition
    private var waiting: [WorkerPool.Job] = []
    // protected by condition: index of the oldest waiting job in `waiting`
    private var head = 0
    // protected by condition: the pool is gone; workers leave once they have run what they were given
    private var stopping = false

    init(workers: Int, maxWaiting: Int) {
        idle = Array((0..<workers).reversed())
        assigned = Array(repeating: nil, count: workers)
        self.maxWaiting = maxWaiting
    }

    /// Sets the calling thread's nice value (on Linux `setpriority(PRIO_PROCESS, 0, ...)` acts on the calling
    /// thread only). Raising it needs no privilege; failure leaves the thread as it was.
    static func lowerPriority(_ nice: Int32) {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
    }

    var waitingCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting.count - head
    }

    func submit(_ job: @escaping WorkerPool.Job) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if let worker = idle.popLast() {
            assigned[worker] = job
            condition.broadcast()
            return true
        }
        guard waiting.count - head < maxWaiting else { return false }
        waiting.append(job)
        return true
    }

    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        condition.unlock()
    }

    /// A worker thread's life: run the job it is handed, then waiting jobs in order until none is left; then wait
    /// idle for the next.
    func work(_ worker: Int) {
        condition.lock()
        while true {
            guard var job = assigned[worker] else {
                if stopping {
                    condition.unlock()
                    return
                }
                condition.wait()
                continue
            }
            assigned[worker] = nil
            while true {
                condition.unlock()
                job()
                condition.lock()
                guard head < waiting.count else { break }
                job = waiting[head]
                head += 1
                if head >= 64 && head * 2 >= waiting.count {
                    waiting.removeFirst(head)
                    head = 0
                }
            }
            waiting.removeAll(keepingCapacity: true)
            head = 0
            idle.append(worker)
        }
    }
}
