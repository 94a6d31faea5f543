//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A column that is missing, `NULL` where a value is required, or not of the requested type.
public struct PostgresDecodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable, Equatable {
        /// The row has no such column.
        case missingColumn
        /// The column is `NULL` and the requested type is not `Optional`.
        case unexpectedNull
        /// The column's text does not parse as the requested type.
        case typeMismatch
    }

    /// What went wrong.
    public let reason: Reason
    /// The column's position, when it was asked for by position.
    public let index: Int?
    /// The column's name (nil when a position is out of range).
    public let name: String?
    /// The requested Swift type's PostgreSQL name.
    public let expectedType: String

    /// "column 3 (duration_ms): NULL where bigint is required".
    public var description: String {
        let column = "column " + (index.map(String.init) ?? "") + (name.map { index == nil ? $0 : " (\($0))" } ?? "")
        switch reason {
        case .missingColumn: return "\(column): missing (expected \(expectedType))"
        case .unexpectedNull: return "\(column): NULL where \(expectedType) is required"
        case .typeMismatch: return "\(column): not a valid \(expectedType)"
        }
    }
}
