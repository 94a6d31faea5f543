//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// scripts/test-tsan.sh's first probe: four threads append under one contended Mutex. With mutex-annotations.so
// preloaded ThreadSanitizer must report nothing (without it, it reports the critical section as a race).

import Dispatch
import Synchronization

/// The shared state, only ever touched under its lock.
final class Shared: Sendable {
    /// The values, bounded to 8.
    let values = Mutex<[Int]>([])
}

let shared = Shared()
let group = DispatchGroup()
for thread in 0..<4 {
    DispatchQueue.global().async(group: group) {
        for n in 0..<100_000 {
            shared.values.withLock {
                $0.append(thread &+ n)
                if $0.count > 8 { $0.removeFirst() }
            }
        }
    }
}
group.wait()
print(shared.values.withLock { $0.count })
