//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// `YYYY-MM-DD<separator>HH:MM:SS.<fraction><suffix>` in UTC: the one formatter behind PostgreSQL's timestamp
/// parameters (`PostgresTimestamp`) and the wire format (`WireTimestamp` in SwitchboardCore).
public enum UTCTimestamp {
    /// Formats `seconds` since 1970 in UTC with `fraction` written in `fractionDigits` digits.
    public static func format(seconds: Int, fraction: Int, fractionDigits: Int, separator: String, suffix: String)
        -> String
    {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return
            "\(pad(Int(parts.tm_year) + 1900, 4))-\(pad(Int(parts.tm_mon) + 1, 2))-"
            + "\(pad(Int(parts.tm_mday), 2))\(separator)"
            + "\(pad(Int(parts.tm_hour), 2)):\(pad(Int(parts.tm_min), 2)):\(pad(Int(parts.tm_sec), 2))."
            + "\(pad(fraction, fractionDigits))"
            + suffix
    }
}
