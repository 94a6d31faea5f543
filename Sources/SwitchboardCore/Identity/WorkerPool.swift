//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A bounded pool of worker threads with one FIFO of waiting jobs: password hashing, voice transcoding and photo
/// work run here, never on a loop queue.
///
/// The workers are threads of their own (not Dispatch queues) so that they can run at a lower scheduling priority
/// than the loops: with `nice` above 0 the kernel runs a loop thread that wakes while a 20 ms Argon2id hash holds
/// the core before the hash, instead of sharing the core with every hash in progress. On a server whose cores are
/// all busy, a loop otherwise got a third of its core behind two hashes, and a 7 ms fan-out took 20-30 ms
/// (issue 17's budget run).
public final class WorkerPool: Sendable {
    public typealias Job = @Sendable () -> Void

    private let state: WorkerPoolState
    /// The nice value the workers run at (0: the process's own).
    public let nice: Int32

    /// - Parameters:
    ///   - workers: jobs running at once (threads).
    ///   - maxWaiting: jobs queued beyond the running ones before `submit` refuses.
    ///   - label: the threads' name (`label.N`).
    ///   - nice: the workers' nice value (Linux: per thread), 0-19; 0 leaves them at the process's priority.
    public init(workers: Int, maxWaiting: Int, label: String = "switchboard.argon2", nice: Int32 = 0) {
        let count = max(1, workers)
        self.nice = min(19, max(0, nice))
        state = WorkerPoolState(workers: count, maxWaiting: max(0, maxWaiting))
        for worker in 0..<count {
            let thread = Thread { [state, nice = self.nice] in
                if nice > 0 { WorkerPoolState.lowerPriority(nice) }
                state.work(worker)
            }
            thread.name = "\(label).\(worker)"
            thread.start()
        }
    }

    deinit {
        state.stop()
    }

    /// Jobs waiting for a worker.
    public var waitingCount: Int { state.waitingCount }

    /// Runs `job` on an idle worker, or queues it. Returns false (and drops `job`) when the queue is full.
    public func submit(_ job: @escaping Job) -> Bool { state.submit(job) }
}
