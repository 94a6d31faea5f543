//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The rows of one statement's result, copied out of the `PGresult` (text format), so it is `Sendable` and
/// outlives the connection call that produced it.
public struct PostgresRows: Sendable, RandomAccessCollection {
    /// The column names, in result order.
    public let columns: [String]
    /// The number of rows affected by an `INSERT`/`UPDATE`/`DELETE` (from `PQcmdTuples`), or the row count.
    public let affectedRows: Int
    /// The command tag, such as `INSERT 0 1`.
    public let commandTag: String
    let cells: [[[UInt8]?]]

    init(columns: [String], cells: [[[UInt8]?]], affectedRows: Int, commandTag: String) {
        self.columns = columns
        self.cells = cells
        self.affectedRows = affectedRows
        self.commandTag = commandTag
    }

    /// The index of the first row.
    public var startIndex: Int { 0 }
    /// One past the index of the last row.
    public var endIndex: Int { cells.count }

    /// The row at `position`.
    public subscript(position: Int) -> PostgresRow {
        PostgresRow(columns: columns, values: cells[position])
    }
}
