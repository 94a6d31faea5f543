//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardStore

/// Typed row decoders: a missing column, a mistyped value or a NULL into a non-optional throws an error naming
/// the column; never a default.
@Suite("Typed row decoders")
struct PostgresDecodingTests {
    static func row(_ values: [(String, String?)]) -> PostgresRow {
        PostgresRow(columns: values.map(\.0), values: values.map { $0.1.map { Array($0.utf8) } })
    }

    /// The decoding error `body` throws (nil when it throws nothing or another error).
    static func error(_ body: () throws -> Void) -> PostgresDecodingError? {
        do {
            try body()
            return nil
        } catch { return error as? PostgresDecodingError }
    }

    @Test func decodesEachType() throws {
        let r = Self.row([
            ("id", "42"), ("name", "Ann"), ("ok", "t"), ("ratio", "0.5"), ("at", "2026-11-24 04:46:16.123456+00"),
            ("blob", "\\x0aff"), ("none", nil), ("kind", "group"),
        ])
        #expect(try r.decode(Int64.self, column: 0) == 42)
        #expect(try r.decode(Int.self, column: 0) == 42)
        #expect(try r.decode(String.self, column: 1) == "Ann")
        #expect(try r.decode(Bool.self, column: 2) == true)
        #expect(try r.decode(Double.self, column: 3) == 0.5)
        #expect(abs(try r.decode(Date.self, column: 4).timeIntervalSince1970 - 1_795_495_576.123456) < 1e-6)
        #expect(try r.decode(PostgresBytes.self, column: 5).bytes == [0x0a, 0xff])
        #expect(try r.decode(Int64?.self, column: 6) == nil)
        #expect(try r.decode(String?.self, column: 1) == "Ann")
        #expect(try r.decode(Int64.self, column: "id") == 42)
        enum Kind: String { case direct, group }
        #expect(try r.decode(Kind.self, column: 7) == .group)
    }

    @Test func missingColumnThrowsNamingIt() {
        let r = Self.row([("id", "1")])
        let byIndex = Self.error { _ = try r.decode(Int64.self, column: 3) }
        #expect(byIndex == PostgresDecodingError(reason: .missingColumn, index: 3, name: nil, expectedType: "bigint"))
        #expect(byIndex?.description == "column 3: missing (expected bigint)")
        let byName = Self.error { _ = try r.decode(String.self, column: "display_name") }
        #expect(byName?.reason == .missingColumn)
        #expect(byName?.description.contains("display_name") == true)
        // An optional does not make a missing column NULL.
        #expect(Self.error { _ = try r.decode(Int64?.self, column: 1) }?.reason == .missingColumn)
    }

    @Test func wrongTypeThrowsNamingTheColumn() {
        let r = Self.row([
            ("id", "abc"), ("ok", "yes"), ("blob", "zz"), ("kind", "channel"), ("n", "9223372036854775808"),
        ])
        let e = Self.error { _ = try r.decode(Int64.self, column: 0) }
        #expect(e == PostgresDecodingError(reason: .typeMismatch, index: 0, name: "id", expectedType: "bigint"))
        #expect(e?.description == "column 0 (id): not a valid bigint")
        #expect(Self.error { _ = try r.decode(Bool.self, column: 1) }?.reason == .typeMismatch)
        #expect(Self.error { _ = try r.decode(PostgresBytes.self, column: 2) }?.name == "blob")
        enum Kind: String { case direct, group }
        #expect(Self.error { _ = try r.decode(Kind.self, column: 3) }?.name == "kind")
        #expect(Self.error { _ = try r.decode(Int64.self, column: 4) }?.reason == .typeMismatch)
        // Text that is not NULL but malformed stays an error inside an optional.
        #expect(Self.error { _ = try r.decode(Int64?.self, column: 0) }?.reason == .typeMismatch)
    }

    @Test func nullIntoNonOptionalThrowsNamingTheColumn() {
        let r = Self.row([("sender_id", nil)])
        let e = Self.error { _ = try r.decode(Int64.self, column: 0) }
        #expect(
            e == PostgresDecodingError(reason: .unexpectedNull, index: 0, name: "sender_id", expectedType: "bigint"))
        #expect(e?.description == "column 0 (sender_id): NULL where bigint is required")
        #expect(Self.error { _ = try r.decode(String.self, column: "sender_id") }?.reason == .unexpectedNull)
    }

    struct Pair: PostgresRowDecodable, Equatable {
        var id: Int64
        var name: String?
        init(id: Int64, name: String?) {
            self.id = id
            self.name = name
        }
        init(row: PostgresRow) throws(PostgresDecodingError) {
            id = try row.decode(column: 0)
            name = try row.decode(column: 1)
        }
    }

    @Test func wholeRowsAndFirstValues() throws {
        let rows = PostgresRows(
            columns: ["id", "name"], cells: [[Array("1".utf8), nil], [Array("2".utf8), Array("b".utf8)]],
            affectedRows: 2,
            commandTag: "SELECT 2")
        #expect(try rows.decode(Pair.self) == [Pair(id: 1, name: nil), Pair(id: 2, name: "b")])
        #expect(try rows.decode(Int64.self, column: 0) == [1, 2])
        #expect(try rows.decodeFirst(Int64.self) == 1)
        #expect(try rows.decodeFirst(Pair.self) == Pair(id: 1, name: nil))
        let empty = PostgresRows(columns: ["id"], cells: [], affectedRows: 0, commandTag: "SELECT 0")
        #expect(try empty.decodeFirst(Int64.self) == nil)
        let bad = PostgresRows(columns: ["id", "name"], cells: [[nil, nil]], affectedRows: 1, commandTag: "SELECT 1")
        #expect(Self.error { _ = try bad.decode(Pair.self) }?.name == "id")
        #expect(Self.error { _ = try bad.decodeFirst(Int64.self) }?.reason == .unexpectedNull)
    }

    /// Against a real server: the text PostgreSQL sends for each type decodes, and the errors name the columns.
    @Test func decodesRealResults() throws {
        let connection = try PostgresConnection(
            connectionString: try TestDatabase.shared.makeDatabase(), logger: quietLogger())
        let r = try #require(
            try on(connection) { db in
                try db.query(
                    "SELECT 7::bigint AS n, 'x'::text AS t, true AS b, NULL::bigint AS missing, '\\x01'::bytea AS blob"
                ).first
            })
        #expect(try r.decode(Int64.self, column: "n") == 7)
        #expect(try r.decode(String.self, column: "t") == "x")
        #expect(try r.decode(Bool.self, column: "b"))
        #expect(try r.decode(Int64?.self, column: "missing") == nil)
        #expect(try r.decode(PostgresBytes.self, column: "blob").bytes == [1])
        #expect(
            Self.error { _ = try r.decode(Int64.self, column: "missing") }?.description
                == "column missing: NULL where bigint is required")
        #expect(
            Self.error { _ = try r.decode(Int64.self, column: 1) }?.description == "column 1 (t): not a valid bigint")
    }
}
