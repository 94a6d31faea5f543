//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CArgon2
import COpenSSL
import Dispatch
import Foundation
import SwitchboardDomain

/// Argon2id parameters. The defaults are OWASP's recommendation for Argon2id (Password Storage Cheat
/// Sheet: m = 19 MiB, t = 2, p = 1), with a 16-byte salt and a 32-byte hash. They are written into
/// every PHC string, so raising them later only makes `needsRehash` true for older hashes.
public struct PasswordHashParameters: Sendable, Equatable {
    /// Memory per hash in KiB (19,456 = 19 MiB).
    public var memoryKiB: UInt32 = 19_456
    /// Passes over the memory.
    public var iterations: UInt32 = 2
    /// Lanes (threads per hash; one, since the pool runs hashes side by side).
    public var parallelism: UInt32 = 1
    /// Random salt bytes per hash.
    public var saltLength = 16
    /// Hash output bytes.
    public var hashLength = 32
    public init() {}
}

/// Errors of the hasher pool.
public enum PasswordHasherError: Error, Equatable, Sendable {
    /// Too many hashes waiting: answer `unavailable` and let the client retry.
    case overloaded
    /// libargon2 failed (an `Argon2_ErrorCodes` value).
    case argon2(Int32)
    /// The random generator failed (no salt).
    case randomUnavailable
}

/// Argon2id (libargon2) on a bounded pool: `workers` serial Dispatch queues take jobs from one FIFO of at
/// most `maxWaiting` waiting jobs; beyond that, calls throw `overloaded` at once. Hashing never runs on a
/// loop queue or a thread of the Swift concurrency pool: callers await a continuation that a worker
/// resumes.
public final class PasswordHasherPool: Sendable {
    /// The parameters new hashes use.
    public let parameters: PasswordHashParameters
    let scheduler: HashScheduler
    /// The default number of workers: the number of active processors.
    public static var defaultWorkerCount: Int { ProcessInfo.processInfo.activeProcessorCount }
    /// PHC string of a random password, verified against for unknown users (equal timing).
    private let dummy: String

    /// - Parameters:
    ///   - workers: hashes running at once (default: the number of active processors).
    ///   - maxWaiting: hashes queued beyond the running ones before `overloaded` (default 64).
    ///   - parameters: Argon2id parameters for new hashes.
    ///   - nice: the hashing threads' nice value (0-19; see ``WorkerPool``).
    public init(
        workers: Int = PasswordHasherPool.defaultWorkerCount, maxWaiting: Int = 64,
        parameters: PasswordHashParameters = PasswordHashParameters(), nice: Int32 = 0
    ) {
        self.parameters = parameters
        scheduler = HashScheduler(workers: max(1, workers), maxWaiting: max(0, maxWaiting), nice: nice)
        dummy = (try? Self.hashNow("dummy-\(UUID().uuidString)", parameters: parameters)) ?? ""
    }

    /// Hashes a password with a fresh random salt.
    /// - Returns: the PHC-encoded Argon2id hash (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`).
    /// - Throws: `PasswordHasherError.overloaded` when the queue is full; `.argon2` or
    ///   `.randomUnavailable` when hashing fails.
    public func hash(_ password: String) async throws -> String {
        let parameters = self.parameters
        return try await run { try Self.hashNow(password, parameters: parameters) }
    }

    /// Checks a password against a stored PHC string (constant-time comparison inside libargon2). A
    /// malformed `encoded` string verifies as false.
    /// - Throws: `PasswordHasherError.overloaded` when the queue is full.
    public func verify(_ password: String, encoded: String) async throws -> Bool {
        try await run { Self.verifyNow(password, encoded: encoded) }
    }

    /// Spends the time of one verification against a random hash, for unknown phone numbers, so that
    /// timing does not reveal which numbers are registered.
    /// - Throws: `PasswordHasherError.overloaded` when the queue is full.
    public func dummyVerify(_ password: String) async throws {
        let dummy = self.dummy
        _ = try await run { Self.verifyNow(password, encoded: dummy) }
    }

    /// Whether a stored hash was made with other parameters than `parameters` (or is not an Argon2id
    /// PHC string): rehash it after the next successful login.
    public func needsRehash(_ encoded: String) -> Bool {
        Self.needsRehash(encoded, parameters: parameters)
    }

    static func needsRehash(_ encoded: String, parameters p: PasswordHashParameters) -> Bool {
        let parts = encoded.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[1] == "argon2id", parts[2] == "v=19" else { return true }
        guard parts[3] == "m=\(p.memoryKiB),t=\(p.iterations),p=\(p.parallelism)" else { return true }
        // Unpadded base64 of n bytes has (4n + 2) / 3 characters.
        return parts[4].utf8.count != (4 * p.saltLength + 2) / 3 || parts[5].utf8.count != (4 * p.hashLength + 2) / 3
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let admitted = scheduler.submit { continuation.resume(with: Result { try work() }) }
            if !admitted { continuation.resume(throwing: PasswordHasherError.overloaded) }
        }
    }

    static func hashNow(_ password: String, parameters p: PasswordHashParameters) throws -> String {
        var salt = [UInt8](repeating: 0, count: p.saltLength)
        guard RAND_bytes(&salt, Int32(salt.count)) == 1 else { throw PasswordHasherError.randomUnavailable }
        let length = argon2_encodedlen(
            p.iterations, p.memoryKiB, p.parallelism, UInt32(p.saltLength), UInt32(p.hashLength), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let pwd = Array(password.utf8)
        let rc = argon2id_hash_encoded(
            p.iterations, p.memoryKiB, p.parallelism, pwd, pwd.count, salt, salt.count, p.hashLength, &encoded, length)
        guard rc == ARGON2_OK.rawValue else { throw PasswordHasherError.argon2(rc) }
        return String(decoding: encoded.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func verifyNow(_ password: String, encoded: String) -> Bool {
        let pwd = Array(password.utf8)
        return argon2id_verify(encoded, pwd, pwd.count) == ARGON2_OK.rawValue
    }
}

/// A bounded FIFO of jobs served by a fixed set of worker threads. Thread-safe.
/// The Argon2 pool's scheduler (a `WorkerPool`).
typealias HashScheduler = WorkerPool

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
