//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

/// One result row. Values are PostgreSQL's text output; the accessors decode them and return `nil` for SQL `NULL`
/// or for text that does not parse as the requested type.
public struct PostgresRow: Sendable {
    /// The column names, in result order.
    public let columns: [String]
    let values: [[UInt8]?]

    /// The index of the column named `name`, or nil.
    public func column(named name: String) -> Int? {
        columns.firstIndex(of: name)
    }

    /// Whether the value in `column` is SQL `NULL` (an out-of-range column also counts as `NULL`).
    public func isNull(_ column: Int) -> Bool {
        value(column) == nil
    }

    /// The value as a string.
    public func string(_ column: Int) -> String? {
        value(column).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The value as an integer (for `smallint`, `integer`, `bigint` columns).
    public func int(_ column: Int) -> Int? {
        string(column).flatMap { Int($0) }
    }

    /// The value as a double.
    public func double(_ column: Int) -> Double? {
        string(column).flatMap { Double($0) }
    }

    /// The value as a boolean (`t`/`f`).
    public func bool(_ column: Int) -> Bool? {
        switch value(column) {
        case [UInt8(ascii: "t")]?: return true
        case [UInt8(ascii: "f")]?: return false
        default: return nil
        }
    }

    /// The value of a `bytea` column, decoded from PostgreSQL's hex output format (`\x0a1b...`).
    public func bytes(_ column: Int) -> [UInt8]? {
        value(column).flatMap(Self.decodeHex)
    }

    /// `\x0a1b...` decoded, or nil when malformed.
    static func decodeHex(_ text: [UInt8]) -> [UInt8]? {
        guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"),
            text.count % 2 == 0
        else { return nil }
        var result = [UInt8]()
        result.reserveCapacity((text.count - 2) / 2)
        var index = 2
        while index < text.count {
            guard let high = Self.hexValue(text[index]), let low = Self.hexValue(text[index + 1]) else { return nil }
            result.append(high << 4 | low)
            index += 2
        }
        return result
    }

    /// The value of a `timestamptz` column (the session time zone is UTC).
    public func date(_ column: Int) -> Date? {
        string(column).flatMap { PostgresTimestamp.parse($0) }
    }

    /// Whether the value in the column named `name` is `NULL` (a missing column also counts as `NULL`).
    public func isNull(_ name: String) -> Bool { column(named: name).map { isNull($0) } ?? true }
    /// The value in the column named `name` as a string.
    public func string(_ name: String) -> String? { column(named: name).flatMap { string($0) } }
    /// The value in the column named `name` as an integer.
    public func int(_ name: String) -> Int? { column(named: name).flatMap { int($0) } }
    /// The value in the column named `name` as a double.
    public func double(_ name: String) -> Double? { column(named: name).flatMap { double($0) } }
    /// The value in the column named `name` as a boolean.
    public func bool(_ name: String) -> Bool? { column(named: name).flatMap { bool($0) } }
    /// The value in the `bytea` column named `name`.
    public func bytes(_ name: String) -> [UInt8]? { column(named: name).flatMap { bytes($0) } }
    /// The value in the `timestamptz` column named `name`.
    public func date(_ name: String) -> Date? { column(named: name).flatMap { date($0) } }

    private func value(_ column: Int) -> [UInt8]? {
        guard values.indices.contains(column) else { return nil }
        return values[column]
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
