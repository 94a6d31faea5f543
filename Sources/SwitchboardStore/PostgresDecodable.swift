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

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static var postgresTypeName: String { Wrapped.postgresTypeName }
    public static func decode(postgresText text: [UInt8]) -> Wrapped?? {
        Wrapped.decode(postgresText: text).map { .some($0) }
    }
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
    public static func decode(postgresText text: [UInt8]) -> Date? {
        PostgresTimestamp.parse(String(decoding: text, as: UTF8.self))
    }
}
