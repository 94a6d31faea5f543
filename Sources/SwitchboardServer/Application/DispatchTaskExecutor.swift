//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch

/// Runs the server's request tasks on a Dispatch queue instead of the shared cooperative pool, so
/// protocol work never waits behind unrelated code that blocks a cooperative thread (in tests, blocking
/// clients in the same process; in embedders, anything). Jobs are short: awaiting the database or the
/// hasher suspends them on continuations resumed from those queues.
final class DispatchTaskExecutor: TaskExecutor {
    let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label, attributes: .concurrent)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
