//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Text message rules (a `StoredText` rule for the field `text`).
public enum MessageText {
    /// The rule of a text message: 1 to `maxCharacters` characters and at most `maxBytes` UTF-8 bytes, not
    /// only white space, no control characters other than line feed, carriage return and tab.
    public static func rule(maxCharacters: Int, maxBytes: Int) -> TextRule {
        TextRule(field: "text", maxCharacters: maxCharacters, maxBytes: maxBytes, controls: .lineBreaksAndTabs)
    }

    /// Checks a text message against `rule(maxCharacters:maxBytes:)` (no byte limit unless given). Returns
    /// the reason it is refused, or nil.
    public static func problem(_ text: String, maxCharacters: Int, maxBytes: Int = .max) -> String? {
        StoredText.problem(text, rule(maxCharacters: maxCharacters, maxBytes: maxBytes))
    }
}
