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
