//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
import SwitchboardStore

/// The one timestamp format on the wire: ISO 8601 in UTC with milliseconds, `2026-11-24T04:46:16.123Z`. Every
/// timestamp in a reply or an event is made by `sql(_:)` (in a query) or `string(from:)` (in Swift); both truncate
/// to the millisecond.
public enum WireTimestamp {
    /// The SQL expression formatting the `timestamptz` expression `column` in the wire format (NULL stays NULL).
    /// Independent of the session's time zone.
    public static func sql(_ column: String) -> String {
        "to_char((\(column)) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    }

    /// `date` in the wire format.
    public static func string(from date: Date) -> String {
        let millis = (date.timeIntervalSince1970 * 1000).rounded(.down)
        var seconds = Int((millis / 1000).rounded(.down))
        var ms = Int(millis - Double(seconds) * 1000)
        if ms >= 1000 {
            seconds += 1
            ms -= 1000
        } else if ms < 0 {
            seconds -= 1
            ms += 1000
        }
        return UTCTimestamp.format(seconds: seconds, fraction: ms, fractionDigits: 3, separator: "T", suffix: "Z")
    }

    /// The current time in the wire format.
    public static func now() -> String { string(from: Date()) }

    /// Whether `text` is in the wire format (shape only: `YYYY-MM-DDTHH:MM:SS.mmmZ`).
    public static func isWellFormed(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 24 else { return false }
        for (i, b) in bytes.enumerated() {
            switch i {
            case 4, 7: if b != UInt8(ascii: "-") { return false }
            case 10: if b != UInt8(ascii: "T") { return false }
            case 13, 16: if b != UInt8(ascii: ":") { return false }
            case 19: if b != UInt8(ascii: ".") { return false }
            case 23: if b != UInt8(ascii: "Z") { return false }
            default: if !(48...57).contains(b) { return false }
            }
        }
        return true
    }
}
