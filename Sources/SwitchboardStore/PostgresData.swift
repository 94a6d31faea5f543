//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

/// A parameter value sent to PostgreSQL.
///
/// Every case except ``bytea(_:)`` travels in PostgreSQL's text format with an unspecified type (OID 0), so the
/// server infers the type from the statement (`$1` compared with an `integer` column is read as an integer).
/// ``bytea(_:)`` travels in binary format with the `bytea` OID, so large blobs (audio) are not hex-inflated.
/// A SQL `NULL` is written as `nil` in a `[PostgresData?]` parameter list.
public enum PostgresData: Sendable, Hashable {
    /// A string, sent verbatim (never spliced into SQL).
    case text(String)
    /// A 64-bit integer.
    case int(Int64)
    /// A double-precision float.
    case double(Double)
    /// A boolean.
    case bool(Bool)
    /// Raw bytes for a `bytea` column, sent in binary format.
    case bytea([UInt8])
    /// A point in time, sent as an ISO 8601 `timestamptz` literal in UTC with microsecond precision.
    case timestamp(Date)

    /// Convenience for an `Int` value.
    public static func int(_ value: Int) -> PostgresData { .int(Int64(value)) }

    /// The PostgreSQL format code: 0 for text, 1 for binary.
    var format: Int32 {
        if case .bytea = self { return 1 }
        return 0
    }

    /// The parameter type OID: `bytea` (17) for bytes, otherwise 0 (let the server infer it).
    var typeOID: UInt32 {
        if case .bytea = self { return 17 }
        return 0
    }

    /// The bytes sent on the wire (text format has no trailing NUL here; the encoder adds one).
    var wireBytes: [UInt8] {
        switch self {
        case .text(let string): return Array(string.utf8)
        case .int(let value): return Array(String(value).utf8)
        case .double(let value): return Array(Self.formatDouble(value).utf8)
        case .bool(let value): return value ? [UInt8(ascii: "t")] : [UInt8(ascii: "f")]
        case .bytea(let bytes): return bytes
        case .timestamp(let date): return Array(PostgresTimestamp.format(date).utf8)
        }
    }

    private static func formatDouble(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }
}
