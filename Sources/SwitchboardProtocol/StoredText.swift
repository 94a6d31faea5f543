//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The rules a client-given string must follow before the server stores it (or uses it as a key): a
/// character limit (grapheme clusters, what a person counts) AND a UTF-8 byte limit (what storage and the
/// wire pay: "a" followed by 20,000 combining marks is one character and 40 KB), no U+0000 anywhere (the
/// database refuses it, and it would end the string for C code), and no control characters where they make no
/// sense.
public struct TextRule: Sendable, Equatable {
    /// Which control characters are refused.
    public enum Controls: Sendable, Equatable {
        /// Every control character (general category Cc: U+0000-001F, U+007F-009F) and the line and
        /// paragraph separators U+2028/U+2029: for names, ids and other one-line strings.
        case none
        /// Control characters other than line feed, carriage return and tab: for message text.
        case lineBreaksAndTabs
    }

    /// The field's name in refusal messages (`display_name`, `text`, `client_id`, ...).
    public var field: String
    /// Most grapheme clusters.
    public var maxCharacters: Int
    /// Most UTF-8 bytes.
    public var maxBytes: Int
    public var controls: Controls
    /// Whether a string of white space only is acceptable (it never is for text, names and devices).
    public var allowsBlank: Bool

    public init(field: String, maxCharacters: Int, maxBytes: Int, controls: Controls = .none, allowsBlank: Bool = false)
    {
        self.field = field
        self.maxCharacters = maxCharacters
        self.maxBytes = maxBytes
        self.controls = controls
        self.allowsBlank = allowsBlank
    }
}

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
