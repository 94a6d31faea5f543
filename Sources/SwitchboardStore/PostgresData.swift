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

/// `YYYY-MM-DD<separator>HH:MM:SS.<fraction><suffix>` in UTC: the one formatter behind PostgreSQL's timestamp
/// parameters (`PostgresTimestamp`) and the wire format (`WireTimestamp` in SwitchboardCore).
public enum UTCTimestamp {
    /// Formats `seconds` since 1970 in UTC with `fraction` written in `fractionDigits` digits.
    public static func format(seconds: Int, fraction: Int, fractionDigits: Int, separator: String, suffix: String) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-\(pad(Int(parts.tm_mday), 2))\(separator)"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2)).\(pad(fraction, fractionDigits))"
            + suffix
    }
}

/// Formatting and parsing of `timestamptz` text in ISO style (the session runs with `TimeZone=UTC`, `DateStyle=ISO`).
enum PostgresTimestamp {
    /// Formats a date as `YYYY-MM-DD HH:MM:SS.ffffff+00`.
    static func format(_ date: Date) -> String {
        let totalMicros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        var seconds = Int((totalMicros / 1_000_000).rounded(.down))
        var micros = Int(totalMicros - Double(seconds) * 1_000_000)
        if micros >= 1_000_000 {
            seconds += 1
            micros -= 1_000_000
        }
        return UTCTimestamp.format(seconds: seconds, fraction: micros, fractionDigits: 6, separator: " ", suffix: "+00")
    }

    /// Parses `YYYY-MM-DD HH:MM:SS[.ffffff][+HH[:MM]]` (also accepts `T` as the separator). Returns nil if malformed.
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        var index = 0
        func number(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
                index += 1
            }
            return value
        }
        func expect(_ characters: String) -> Bool {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            expect(" T"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2)
        else { return nil }
        var micros = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                if digits < 6 { micros = micros * 10 + Int(bytes[index] - 48) }
                digits += 1
                index += 1
            }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offsetSeconds = 0
        if index < bytes.count {
            let sign = bytes[index]
            guard sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
            index += 1
            guard let offsetHours = number(2) else { return nil }
            var offsetMinutes = 0
            if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
                index += 1
                guard let minutes = number(2) else { return nil }
                offsetMinutes = minutes
            }
            offsetSeconds = (offsetHours * 3600 + offsetMinutes * 60) * (sign == UInt8(ascii: "-") ? -1 : 1)
        }
        guard index == bytes.count else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let epoch = Int(timegm(&parts)) - offsetSeconds
        return Date(timeIntervalSince1970: Double(epoch) + Double(micros) / 1_000_000)
    }
}
