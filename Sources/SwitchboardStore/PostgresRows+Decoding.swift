//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
    public func decodeFirst<T: PostgresDecodable>(_ type: T.Type = T.self, column: Int = 0)
        throws(PostgresDecodingError) -> T?
    {
        guard let row = first else { return nil }
        return try row.decode(T.self, column: column)
    }

    /// The first row decoded into `T`, or nil when there are no rows.
    public func decodeFirst<T: PostgresRowDecodable>(_ type: T.Type = T.self) throws(PostgresDecodingError) -> T? {
        guard let row = first else { return nil }
        return try T(row: row)
    }

    /// Column `column` of every row as `T`.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column: Int) throws(PostgresDecodingError) -> [T]
    {
        var result: [T] = []
        result.reserveCapacity(count)
        for row in self { result.append(try row.decode(T.self, column: column)) }
        return result
    }
}
