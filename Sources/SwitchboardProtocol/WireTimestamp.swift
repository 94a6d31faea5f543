//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The one timestamp format on the wire: ISO 8601 in UTC with milliseconds, `2026-11-24T04:46:16.123Z`. Every
/// timestamp in a reply or an event is made by `sql(_:)` (in a query, SwitchboardCore) or `string(from:)` (in
/// Swift); both truncate to the millisecond.
public enum WireTimestamp {
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
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(ms), 3))Z"
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
