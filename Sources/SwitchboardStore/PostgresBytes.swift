//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The bytes of a `bytea` column (PostgreSQL's hex output, `\x0a1b...`).
public struct PostgresBytes: PostgresDecodable, Equatable {
    /// The bytes.
    public let bytes: [UInt8]
    /// Wraps `bytes`.
    public init(_ bytes: [UInt8]) { self.bytes = bytes }
    public static var postgresTypeName: String { "bytea" }
    public static func decode(postgresText text: [UInt8]) -> PostgresBytes? {
        PostgresRow.decodeHex(text).map(PostgresBytes.init)
    }
}
