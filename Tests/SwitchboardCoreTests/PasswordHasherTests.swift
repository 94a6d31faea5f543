//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import SwitchboardDomain
import Synchronization
import Testing

@testable import SwitchboardCore

/// Cheap parameters for tests that only exercise the pool.
func cheapParameters() -> PasswordHashParameters {
    var p = PasswordHashParameters()
    p.memoryKiB = 1_024
    p.iterations = 1
    return p
}

/// Waits (bounded) until `condition` holds.
func eventually(_ condition: () -> Bool) async throws {
    for _ in 0..<500 where !condition() {
        try await Task.sleep(for: .milliseconds(10))
    }
}

@Suite struct PasswordHasherTests {
    @Test func argon2idRoundTripWithOWASPParameters() async throws {
        let pool = PasswordHasherPool(workers: 2)
        let encoded = try await pool.hash("correct horse 42")
        #expect(encoded.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        let parts = encoded.split(separator: "$")
        #expect(parts.count == 5 && parts[3].count == 22 && parts[4].count == 43)  // 16-byte salt, 32-byte hash
        #expect(try await pool.verify("correct horse 42", encoded: encoded))
        #expect(try await !pool.verify("correct horse 43", encoded: encoded))
        #expect(try await !pool.verify("", encoded: encoded))
        #expect(!pool.needsRehash(encoded))
        try await pool.dummyVerify("anything")
        // A fresh salt every time.
        #expect(try await pool.hash("correct horse 42") != encoded)
    }

    @Test func unicodeAndLongPasswords() async throws {
        let pool = PasswordHasherPool(workers: 1, parameters: cheapParameters())
        for password in ["pässwörd ✓ パスワード", String(repeating: "x", count: 1_024)] {
            let encoded = try await pool.hash(password)
            #expect(try await pool.verify(password, encoded: encoded))
            #expect(try await !pool.verify(password + " ", encoded: encoded))
        }
    }

    @Test func malformedStoredHashesVerifyFalse() async throws {
        let pool = PasswordHasherPool(workers: 1, parameters: cheapParameters())
        for encoded in ["", "x", "$argon2id$v=19$m=1024,t=1,p=1$AAAA$AAAA", "$2b$10$abcdefghijklmnopqrstuv"] {
            #expect(try await !pool.verify("pw", encoded: encoded))
        }
    }

    @Test func needsRehashWhenParametersChange() async throws {
        let cheap = PasswordHasherPool(workers: 1, parameters: cheapParameters())
        let old = try await cheap.hash("pw")
        #expect(old.hasPrefix("$argon2id$v=19$m=1024,t=1,p=1$"))
        #expect(!cheap.needsRehash(old))
        #expect(PasswordHasherPool.needsRehash(old, parameters: PasswordHashParameters()))
        var longerHash = cheapParameters()
        longerHash.hashLength = 64
        #expect(PasswordHasherPool.needsRehash(old, parameters: longerHash))
        for garbage in [
            "", "$argon2i$v=19$m=1024,t=1,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaA", "$argon2id$v=16$m=1024,t=1,p=1$a$b",
        ] {
            #expect(cheap.needsRehash(garbage))
        }
    }

    @Test func saturatedPoolThrowsOverloaded() async throws {
        let pool = PasswordHasherPool(workers: 1, maxWaiting: 1, parameters: cheapParameters())
        let release = DispatchSemaphore(value: 0)
        // Occupy the only worker.
        #expect(pool.scheduler.submit { release.wait() })
        // One hash may wait...
        let waiting = Task { try await pool.hash("queued") }
        try await eventually { pool.scheduler.waitingCount == 1 }
        #expect(pool.scheduler.waitingCount == 1)
        // ...the next is refused at once.
        await #expect(throws: PasswordHasherError.overloaded) { try await pool.hash("refused") }
        await #expect(throws: PasswordHasherError.overloaded) { try await pool.verify("refused", encoded: "x") }
        await #expect(throws: PasswordHasherError.overloaded) { try await pool.dummyVerify("refused") }
        release.signal()
        let encoded = try await waiting.value
        #expect(try await pool.verify("queued", encoded: encoded))
        #expect(pool.scheduler.waitingCount == 0)
    }

    @Test func manyConcurrentCallsWithinTheBoundAllSucceed() async throws {
        let pool = PasswordHasherPool(workers: 2, maxWaiting: 64, parameters: cheapParameters())
        let results = try await withThrowingTaskGroup(of: Bool.self) { group in
            for i in 0..<24 {
                group.addTask {
                    let encoded = try await pool.hash("pw\(i)")
                    return try await pool.verify("pw\(i)", encoded: encoded)
                }
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.count == 24 && results.allSatisfy { $0 })
    }

    @Test func schedulerRunsJobsInOrderAndBoundsTheQueue() async throws {
        let scheduler = HashScheduler(workers: 1, maxWaiting: 3)
        let release = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let order = Mutex<[Int]>([])
        #expect(scheduler.submit { release.wait() })
        for i in 1...3 {
            #expect(
                scheduler.submit {
                    order.withLock { $0.append(i) }
                    done.signal()
                })
        }
        #expect(scheduler.waitingCount == 3)
        #expect(!scheduler.submit { Issue.record("a refused job ran") })
        release.signal()
        for _ in 1...3 { #expect(done.wait(timeout: .now() + 10) == .success) }
        #expect(order.withLock { $0 } == [1, 2, 3])
        // The worker is idle again: the next job runs at once.
        #expect(scheduler.submit { done.signal() })
        #expect(done.wait(timeout: .now() + 10) == .success)
    }
}
