//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

/// A Swift type one result column decodes into, from PostgreSQL's text output. SQL `NULL` decodes only into an
/// `Optional`; every other mismatch is a `PostgresDecodingError` naming the column (never a silent default).
public protocol PostgresDecodable: Sendable {
    /// The name used in errors (`bigint`, `text`, ...).
    static var postgresTypeName: String { get }
    /// The value of `text`, or nil when the text does not parse as this type.
    static func decode(postgresText text: [UInt8]) -> Self?
    /// The value for SQL `NULL`, or nil when `NULL` is not allowed (every type but `Optional`).
    static var postgresNull: Self? { get }
}

extension PostgresDecodable {
    /// `NULL` is not allowed.
    public static var postgresNull: Self? { nil }
}

/// A type built from one whole result row, by column position; `init(row:)` throws the first decoding error.
public protocol PostgresRowDecodable: Sendable {
    /// Decodes one row.
    init(row: PostgresRow) throws(PostgresDecodingError)
}

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

extension PostgresRow {
    /// The value in column `column` (by position) as `T`; throws on a missing column, on `NULL` unless `T` is
    /// `Optional`, and on text that does not parse as `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column: Int) throws(PostgresDecodingError) -> T {
        let name = columns.indices.contains(column) ? columns[column] : nil
        guard values.indices.contains(column) else {
            throw PostgresDecodingError(reason: .missingColumn, index: column, name: name, expectedType: T.postgresTypeName)
        }
        return try Self.decode(values[column], index: column, name: name)
    }

    /// The value in the column named `name` as `T` (see `decode(_:column:)` for the errors).
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws(PostgresDecodingError) -> T {
        guard let column = column(named: name), values.indices.contains(column) else {
            throw PostgresDecodingError(reason: .missingColumn, index: nil, name: name, expectedType: T.postgresTypeName)
        }
        return try Self.decode(values[column], index: nil, name: name)
    }

    /// The value in column `column` as the `RawRepresentable` `T` (an enum stored as text, say); an unknown raw
    /// value is a type mismatch.
    public func decode<T: RawRepresentable & Sendable>(_ type: T.Type = T.self, column: Int) throws(PostgresDecodingError) -> T
    where T.RawValue: PostgresDecodable {
        let raw = try decode(T.RawValue.self, column: column)
        guard let value = T(rawValue: raw) else {
            throw PostgresDecodingError(
                reason: .typeMismatch, index: column, name: columns.indices.contains(column) ? columns[column] : nil,
                expectedType: String(describing: T.self))
        }
        return value
    }

    /// Decodes the whole row into `T`.
    public func decode<T: PostgresRowDecodable>(_ type: T.Type = T.self) throws(PostgresDecodingError) -> T {
        try T(row: self)
    }

    private static func decode<T: PostgresDecodable>(_ value: [UInt8]?, index: Int?, name: String?) throws(PostgresDecodingError) -> T {
        guard let value else {
            guard let null = T.postgresNull else {
                throw PostgresDecodingError(reason: .unexpectedNull, index: index, name: name, expectedType: T.postgresTypeName)
            }
            return null
        }
        guard let decoded = T.decode(postgresText: value) else {
            throw PostgresDecodingError(reason: .typeMismatch, index: index, name: name, expectedType: T.postgresTypeName)
        }
        return decoded
    }
}

extension PostgresRows {
    /// Every row decoded into `T`.
    public func decode<T: PostgresRowDecodable>(_ type: T.Type = T.self) throws(PostgresDecodingError) -> [T] {
        var result: [T] = []
        result.reserveCapacity(count)
        for row in self { result.append(try T(row: row)) }
        return result
    }

    /// Column `column` of the first row as `T`, or nil when there are no rows (a row whose value does not decode
    /// throws, as in `PostgresRow.decode(_:column:)`).
    public func decodeFirst<T: PostgresDecodable>(_ type: T.Type = T.self, column: Int = 0) throws(PostgresDecodingError) -> T? {
        guard let row = first else { return nil }
        return try row.decode(T.self, column: column)
    }

    /// The first row decoded into `T`, or nil when there are no rows.
    public func decodeFirst<T: PostgresRowDecodable>(_ type: T.Type = T.self) throws(PostgresDecodingError) -> T? {
        guard let row = first else { return nil }
        return try T(row: row)
    }

    /// Column `column` of every row as `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column: Int) throws(PostgresDecodingError) -> [T] {
        var result: [T] = []
        result.reserveCapacity(count)
        for row in self { result.append(try row.decode(T.self, column: column)) }
        return result
    }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static var postgresTypeName: String { Wrapped.postgresTypeName }
    public static func decode(postgresText text: [UInt8]) -> Wrapped?? { Wrapped.decode(postgresText: text).map { .some($0) } }
    public static var postgresNull: Wrapped?? { .some(.none) }
}

extension String: PostgresDecodable {
    public static var postgresTypeName: String { "text" }
    public static func decode(postgresText text: [UInt8]) -> String? { String(decoding: text, as: UTF8.self) }
}

extension Int64: PostgresDecodable {
    public static var postgresTypeName: String { "bigint" }
    public static func decode(postgresText text: [UInt8]) -> Int64? { Int64(String(decoding: text, as: UTF8.self)) }
}

extension Int: PostgresDecodable {
    public static var postgresTypeName: String { "integer" }
    public static func decode(postgresText text: [UInt8]) -> Int? { Int(String(decoding: text, as: UTF8.self)) }
}

extension Int32: PostgresDecodable {
    public static var postgresTypeName: String { "integer" }
    public static func decode(postgresText text: [UInt8]) -> Int32? { Int32(String(decoding: text, as: UTF8.self)) }
}

extension Double: PostgresDecodable {
    public static var postgresTypeName: String { "double precision" }
    public static func decode(postgresText text: [UInt8]) -> Double? { Double(String(decoding: text, as: UTF8.self)) }
}

extension Bool: PostgresDecodable {
    public static var postgresTypeName: String { "boolean" }
    public static func decode(postgresText text: [UInt8]) -> Bool? {
        switch text {
        case [UInt8(ascii: "t")]: return true
        case [UInt8(ascii: "f")]: return false
        default: return nil
        }
    }
}

extension Date: PostgresDecodable {
    public static var postgresTypeName: String { "timestamptz" }
    public static func decode(postgresText text: [UInt8]) -> Date? { PostgresTimestamp.parse(String(decoding: text, as: UTF8.self)) }
}

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
