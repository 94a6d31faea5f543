//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

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
