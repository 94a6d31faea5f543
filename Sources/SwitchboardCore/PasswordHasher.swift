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

/// Argon2id parameters (OWASP's recommendation: 19 MiB, 2 passes, 1 lane).
public struct PasswordHashParameters: Sendable, Equatable {
    public var memoryKiB: UInt32 = 19_456
    public var iterations: UInt32 = 2
    public var parallelism: UInt32 = 1
    public var saltLength = 16
    public var hashLength = 32
    public init() {}
}

/// Errors of the hasher pool.
public enum PasswordHasherError: Error, Equatable, Sendable {
    /// Too many hashes waiting: answer `unavailable` and let the client retry.
    case overloaded
    /// libargon2 failed (`argon2_error_message` code).
    case argon2(Int32)
}

/// Argon2id (libargon2) on a bounded set of worker queues; never on a loop queue or the Swift
/// concurrency pool (callers await a continuation resumed from the worker).
public final class PasswordHasherPool: Sendable {
    public let parameters: PasswordHashParameters
    private let queues: [DispatchQueue]
    private let admission: AdmissionCounter
    /// PHC string of a random password, verified against for unknown users (equal timing).
    private let dummy: String

    /// - Parameters:
    ///   - workers: concurrent hashes.
    ///   - maxWaiting: hashes queued beyond the running ones before `overloaded`.
    public init(workers: Int, maxWaiting: Int = 64, parameters: PasswordHashParameters = PasswordHashParameters()) {
        self.parameters = parameters
        queues = (0..<max(1, workers)).map { DispatchQueue(label: "switchboard.argon2.\($0)") }
        admission = AdmissionCounter(limit: max(1, workers) + maxWaiting)
        dummy = (try? Self.hashNow("dummy-\(UUID().uuidString)", parameters: parameters)) ?? ""
    }

    /// The PHC-encoded Argon2id hash (`$argon2id$v=19$m=19456,t=2,p=1$...`).
    public func hash(_ password: String) async throws -> String {
        let parameters = self.parameters
        return try await run { try Self.hashNow(password, parameters: parameters) }
    }

    /// Constant-time verification through libargon2.
    public func verify(_ password: String, encoded: String) async throws -> Bool {
        try await run { Self.verifyNow(password, encoded: encoded) }
    }

    /// Spends the time of one verification (for unknown phone numbers).
    public func dummyVerify(_ password: String) async throws {
        let dummy = self.dummy
        _ = try await run { Self.verifyNow(password, encoded: dummy) }
    }

    /// Whether a stored hash used other parameters than the current ones.
    public func needsRehash(_ encoded: String) -> Bool {
        !encoded.hasPrefix("$argon2id$v=19$m=\(parameters.memoryKiB),t=\(parameters.iterations),p=\(parameters.parallelism)$")
    }

    private func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        guard let slot = admission.enter() else { throw PasswordHasherError.overloaded }
        let queue = queues[slot % queues.count]
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                defer { self.admission.leave() }
                continuation.resume(with: Result { try work() })
            }
        }
    }

    static func hashNow(_ password: String, parameters p: PasswordHashParameters) throws -> String {
        var salt = [UInt8](repeating: 0, count: p.saltLength)
        guard RAND_bytes(&salt, Int32(salt.count)) == 1 else { throw PasswordHasherError.argon2(-1) }
        let length = argon2_encodedlen(p.iterations, p.memoryKiB, p.parallelism, UInt32(p.saltLength), UInt32(p.hashLength), Argon2_id)
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

/// Counts admitted jobs against a limit; thread-safe.
final class AdmissionCounter: @unchecked Sendable {
    // @unchecked Sendable: `count` and `next` are only touched under `lock`.
    private let lock = NSLock()
    private var count = 0
    private var next = 0
    let limit: Int
    init(limit: Int) { self.limit = limit }
    /// A slot number (for queue choice), or nil when full.
    func enter() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard count < limit else { return nil }
        count += 1
        next &+= 1
        return next
    }
    func leave() {
        lock.lock()
        count -= 1
        lock.unlock()
    }
}
