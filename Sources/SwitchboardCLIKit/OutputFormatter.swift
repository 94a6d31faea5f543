//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient

#if canImport(Glibc)
import Glibc
#endif

/// Renders records as lines (pure; `Printer` writes them).
public enum OutputFormatter {
    /// The line for `record` in `mode`, without the newline.
    public static func render(_ record: OutputRecord, mode: OutputMode) -> String {
        switch mode {
        case .json:
            var object = record.fields
            object["type"] = .string(record.type)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            guard let data = try? encoder.encode(JSONValue.object(object)) else {
                return "{\"type\":\"\(record.type)\"}"
            }
            return String(decoding: data, as: UTF8.self)
        case .human(let color):
            let text = sanitize(record.text)
            guard color, record.style != .plain else { return text }
            return record.style.ansi + text + "\u{1B}[0m"
        }
    }

    /// Replaces control characters (other than tab) so that text from others cannot drive the terminal.
    public static func sanitize(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    (scalar.value < 0x20 && scalar != "\t") || (0x7F...0x9F).contains(scalar.value)
                        ? "\u{FFFD}" : scalar
                }))
    }
}
