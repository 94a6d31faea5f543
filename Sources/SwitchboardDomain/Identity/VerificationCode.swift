//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL

/// A one-time code sent to a phone (phone verification, docs/protocol.md "Phone verification"): six decimal
/// digits from `RAND_bytes` (uniform: rejection sampling), stored only as the SHA-256 of a per-code random salt
/// followed by the code, compared in constant time.
public struct VerificationCode: Sendable, CustomStringConvertible {
    /// The digits sent to the phone.
    public let digits: String
    /// 16 random bytes, stored next to the hash.
    public let salt: [UInt8]
    /// SHA-256 of `salt` then the code's UTF-8: what the database keeps.
    public let hash: [UInt8]

    /// Redacts the code.
    public var description: String { "VerificationCode(<redacted>)" }

    /// A new random code with a new salt.
    public static func generate() -> VerificationCode {
        var bytes = [UInt8](repeating: 0, count: 4)
        var value: UInt32
        repeat {
            precondition(RAND_bytes(&bytes, 4) == 1, "RAND_bytes failed")
            value = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
        } while value >= 4_294_000_000  // a multiple of 1,000,000: every code equally likely
        let number = String(value % 1_000_000)
        let digits = String(repeating: "0", count: 6 - number.count) + number
        var salt = [UInt8](repeating: 0, count: 16)
        precondition(RAND_bytes(&salt, 16) == 1, "RAND_bytes failed")
        return VerificationCode(digits: digits, salt: salt, hash: hash(digits, salt: salt))
    }

    /// The stored hash of `code` with `salt`.
    public static func hash(_ code: String, salt: [UInt8]) -> [UInt8] {
        SessionToken.sha256(salt + Array(code.utf8))
    }

    /// Whether `code` is the one stored as `hash` with `salt` (constant time in the hashes' bytes).
    public static func matches(_ code: String, salt: [UInt8], hash stored: [UInt8]) -> Bool {
        let given = hash(code, salt: salt)
        guard given.count == stored.count else { return false }
        var difference: UInt8 = 0
        for (a, b) in zip(given, stored) { difference |= a ^ b }
        return difference == 0
    }
}
