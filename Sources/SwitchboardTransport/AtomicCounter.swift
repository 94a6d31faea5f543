//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
import Glibc
#endif

/// A thread-safe counter.
final class AtomicCounter: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched under `lock`.
    private var lock = pthread_mutex_t()
    private var value = 0
    init() { pthread_mutex_init(&lock, nil) }
    deinit { pthread_mutex_destroy(&lock) }
    /// Returns the value before incrementing.
    func increment() -> Int {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        let v = value
        value &+= 1
        return v
    }
    func add(_ delta: Int) {
        pthread_mutex_lock(&lock)
        value += delta
        pthread_mutex_unlock(&lock)
    }
    var current: Int {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return value
    }
}
