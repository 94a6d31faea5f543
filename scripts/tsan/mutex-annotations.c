//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Tells ThreadSanitizer about Synchronization.Mutex's contended path on Linux. Loaded with LD_PRELOAD by
// scripts/test-tsan.sh only; never part of the server.
//
// Why: `Mutex.withLock` is inlined into our (instrumented) code, including its fast path, an atomic
// compare-exchange that TSan sees as an acquire or a release. But when the lock is contended, the lock and the
// unlock run in the standard library's `_MutexHandle._lockSlow`, `_tryLockSlow` and `_unlockSlow` (a spin, then
// FUTEX_LOCK_PI / FUTEX_UNLOCK_PI), which are not instrumented: TSan then sees no happens-before between the thread
// that released the lock and the one that took it, and reports every access made under the lock as a race (a
// ten-line program with four threads appending under one Mutex reports 2-3 "Swift access races" on Swift 6.3.1).
// Suppressions cannot fix that without hiding real races: a suppression matches either stack of a report, so one
// naming a lock's critical section would also hide an access to that state made *without* the lock.
//
// How: this library defines the three slow-path symbols (the executable's calls go through the PLT to
// libswiftSynchronization.so, and a preloaded definition comes first), forwards each to the real one
// (dlsym(RTLD_NEXT)), and annotates the mutex's address: an acquire after a slow lock, a release before a slow
// unlock. The fast path's atomics are on the same address (the handle's first field), so TSan joins both paths
// into one synchronization object. Real races stay visible: an access without the lock is still unordered with the
// accesses of other threads (scripts/test-tsan.sh checks both directions with two probes before the tests).
//
// The handle is passed by address in the Swift self register (r13 on x86_64: clang's `swift_context`), the
// thread id of `_lockSlow` in the first argument register, as the disassembly of libswiftSynchronization.so shows.
// The TSan entry points are weak: in a process without TSan (postgres, python started by a test) nothing calls
// these functions, and nothing is resolved.

#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));

#define SWIFTCC __attribute__((swiftcall))
#define SWIFT_SELF __attribute__((swift_context))

typedef SWIFTCC void (*LockSlow)(uint32_t threadID, void *SWIFT_SELF handle);
typedef SWIFTCC bool (*TryLockSlow)(void *SWIFT_SELF handle);
typedef SWIFTCC void (*UnlockSlow)(void *SWIFT_SELF handle);

#define LOCK_SLOW "$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF"
#define TRY_LOCK_SLOW "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"
#define UNLOCK_SLOW "$s15Synchronization12_MutexHandleV11_unlockSlowyyF"

/// The standard library's function `name`, looked up once (any thread; the value is the same for all).
static void *forward(void **cache, const char *name) {
    void *function = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (function) return function;
    function = dlsym(RTLD_NEXT, name);
    if (!function) {
        static const char message[] = "mutex-annotations: Mutex's slow path not found in libswiftSynchronization\n";
        (void)write(2, message, sizeof message - 1);
        abort();
    }
    __atomic_store_n(cache, function, __ATOMIC_RELEASE);
    return function;
}

SWIFTCC void SwitchboardTSan_lockSlow(uint32_t threadID, void *SWIFT_SELF handle) __asm__(LOCK_SLOW);
SWIFTCC void SwitchboardTSan_lockSlow(uint32_t threadID, void *SWIFT_SELF handle) {
    static void *cache;
    ((LockSlow)forward(&cache, LOCK_SLOW))(threadID, handle);
    if (__tsan_acquire) __tsan_acquire(handle);
}

SWIFTCC bool SwitchboardTSan_tryLockSlow(void *SWIFT_SELF handle) __asm__(TRY_LOCK_SLOW);
SWIFTCC bool SwitchboardTSan_tryLockSlow(void *SWIFT_SELF handle) {
    static void *cache;
    bool locked = ((TryLockSlow)forward(&cache, TRY_LOCK_SLOW))(handle);
    if (locked && __tsan_acquire) __tsan_acquire(handle);
    return locked;
}

SWIFTCC void SwitchboardTSan_unlockSlow(void *SWIFT_SELF handle) __asm__(UNLOCK_SLOW);
SWIFTCC void SwitchboardTSan_unlockSlow(void *SWIFT_SELF handle) {
    static void *cache;
    if (__tsan_release) __tsan_release(handle);
    ((UnlockSlow)forward(&cache, UNLOCK_SLOW))(handle);
}
