//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A type built from one whole result row, by column position; `init(row:)` throws the first decoding error.
public protocol PostgresRowDecodable: Sendable {
    /// Decodes one row.
    init(row: PostgresRow) throws(PostgresDecodingError)
}
