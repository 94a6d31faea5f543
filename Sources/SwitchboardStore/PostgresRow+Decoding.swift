//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

extension PostgresRow {
    /// The value in column `column` (by position) as `T`; throws on a missing column, on `NULL` unless `T` is
    /// `Optional`, and on text that does not parse as `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column: Int) throws(PostgresDecodingError) -> T {
        let name = columns.indices.contains(column) ? columns[column] : nil
        guard values.indices.contains(column) else {
            throw PostgresDecodingError(
                reason: .missingColumn, index: column, name: name, expectedType: T.postgresTypeName)
        }
        return try Self.decode(values[column], index: column, name: name)
    }

    /// The value in the column named `name` as `T` (see `decode(_:column:)` for the errors).
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws(PostgresDecodingError)
        -> T
    {
        guard let column = column(named: name), values.indices.contains(column) else {
            throw PostgresDecodingError(
                reason: .missingColumn, index: nil, name: name, expectedType: T.postgresTypeName)
        }
        return try Self.decode(values[column], index: nil, name: name)
    }

    /// The value in column `column` as the `RawRepresentable` `T` (an enum stored as text, say); an unknown raw
    /// value is a type mismatch.
    public func decode<T: RawRepresentable & Sendable>(_ type: T.Type = T.self, column: Int)
        throws(PostgresDecodingError) -> T
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

    private static func decode<T: PostgresDecodable>(_ value: [UInt8]?, index: Int?, name: String?)
        throws(PostgresDecodingError) -> T
    {
        guard let value else {
            guard let null = T.postgresNull else {
                throw PostgresDecodingError(
                    reason: .unexpectedNull, index: index, name: name, expectedType: T.postgresTypeName)
            }
            return null
        }
        guard let decoded = T.decode(postgresText: value) else {
            throw PostgresDecodingError(
                reason: .typeMismatch, index: index, name: name, expectedType: T.postgresTypeName)
        }
        return decoded
    }
}
