//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Errors of the hasher pool.
public enum PasswordHasherError: Error, Equatable, Sendable {
    /// Too many hashes waiting: answer `unavailable` and let the client retry.
    case overloaded
    /// libargon2 failed (an `Argon2_ErrorCodes` value).
    case argon2(Int32)
    /// The random generator failed (no salt).
    case randomUnavailable
}
