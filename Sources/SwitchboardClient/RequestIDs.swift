//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Request ids, unique per client, from any thread.
final class RequestIDs: @unchecked Sendable {
    // @unchecked Sendable: `next` is protected by `lock`.
    private let lock = NSLock()
    // protected by lock
    private var value: Int64 = 0

    func next() -> Int64 {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
