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
