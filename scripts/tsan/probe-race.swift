//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// scripts/test-tsan.sh's second probe: while four threads contend for a Mutex, two threads write a field that no
// lock protects. With mutex-annotations.so preloaded ThreadSanitizer must still report that race (the annotations
// order the lock's users, not everything).

import Dispatch
import Foundation
import Synchronization

/// A locked list and a field written without any lock (the bug the probe plants).
final class Shared: @unchecked Sendable {
    /// The values, bounded to 8.
    let values = Mutex<[Int]>([])
    /// Written by two threads with no synchronization: a race.
    var unprotected = 0
}

let shared = Shared()
let group = DispatchGroup()
for thread in 0..<4 {
    DispatchQueue.global().async(group: group) {
        for n in 0..<50_000 {
            shared.values.withLock {
                $0.append(thread &+ n)
                if $0.count > 8 { $0.removeFirst() }
            }
        }
    }
}
let writers = (0..<2).map { _ in Thread { for _ in 0..<1_000_000 { shared.unprotected &+= 1 } } }
for writer in writers { writer.start() }
group.wait()
while writers.contains(where: { !$0.isFinished }) { usleep(10_000) }
print(shared.values.withLock { $0.count })
