//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Validation of every string the server stores: message text, client message ids, group names, display
/// names, device names (see `TextRule`). Each check answers with a message naming the rule broken.
public enum StoredText {
    /// Checks `text` against `rule`.
    /// - Returns: why it is refused (a human-readable message naming the field and the rule), or nil.
    /// - Complexity: the byte limit is checked first (O(1) for native strings), so an oversized string
    ///   costs no scan.
    public static func problem(_ text: String, _ rule: TextRule) -> String? {
        if text.isEmpty { return "\(rule.field) is empty" }
        if text.utf8.count > rule.maxBytes { return "\(rule.field) is longer than \(rule.maxBytes) bytes (UTF-8)" }
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v == 0 { return "\(rule.field) contains U+0000" }
            let isControl = v < 0x20 || (0x7F..<0xA0).contains(v)
            switch rule.controls {
            case .none:
                if isControl || v == 0x2028 || v == 0x2029 {
                    return "\(rule.field) contains a control character (\(codePoint(v)))"
                }
            case .lineBreaksAndTabs:
                if isControl && v != 0x0A && v != 0x0D && v != 0x09 {
                    return "\(rule.field) contains a control character (\(codePoint(v)))"
                }
            }
        }
        var count = 0
        for _ in text {
            count += 1
            if count > rule.maxCharacters { return "\(rule.field) is longer than \(rule.maxCharacters) characters" }
        }
        if !rule.allowsBlank && text.allSatisfy(\.isWhitespace) { return "\(rule.field) is only white space" }
        return nil
    }

    /// Whether `text` contains U+0000 (for strings that are compared, not stored: passwords).
    public static func containsNUL(_ text: String) -> Bool { text.utf8.contains(0) }

    static func codePoint(_ v: UInt32) -> String {
        let hex = String(v, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}
