//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
