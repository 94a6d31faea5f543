//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Foundation
import SwitchboardProtocol

/// Reads the wire's timestamp format (`2026-11-23T01:02:03.456Z`, `WireTimestamp`) into an instant.
public enum WireInstant {
    /// The instant `text` names, or nil when it is not exactly the wire format or not a valid date and time.
    public static func parse(_ text: String) -> Date? {
        guard WireTimestamp.isWellFormed(text), let date = LocalDate(String(text.prefix(10))) else { return nil }
        let b = Array(text.utf8)
        func n(_ i: Int, _ count: Int) -> Int { (i..<i + count).reduce(0) { $0 * 10 + Int(b[$1] - 48) } }
        let (h, m, s, ms) = (n(11, 2), n(14, 2), n(17, 2), n(20, 3))
        guard h < 24, m < 60, s < 60 else { return nil }
        let seconds = Int64(date.dayNumber) * 86_400 + Int64(h * 3600 + m * 60 + s)
        // A tenth of a millisecond more than the exact value, which a Double may hold just below: formatting (which
        // truncates to the millisecond) and storing (through that format) give back `text`.
        return Date(timeIntervalSince1970: (Double(seconds * 1000 + Int64(ms)) + 0.1) / 1000)
    }
}
