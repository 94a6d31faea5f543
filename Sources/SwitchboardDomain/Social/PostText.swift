//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The text of a post (`post.create`, docs/protocol.md "Posts and timelines"): normalized, checked, and its mentions
/// and hashtags. Pure: no database, no clock; fuzzed by `fuzz/PostTextFuzz.swift`.
///
/// Rules, in order:
/// - At most `maxBytes` UTF-8 bytes (checked first, so an oversized string costs no scan).
/// - A carriage return before a line feed, or alone, becomes a line feed; any other control character (general
///   category Cc, U+0000-001F and U+007F-009F, tab included) is refused.
/// - NFC (Unicode canonical composition), then white space and line breaks trimmed at both ends.
/// - Empty after that: refused unless the post carries something else (a voice clip).
/// - At most `maxCharacters` grapheme clusters (what a person counts: "👍🏽" and "é" are one each).
///
/// A mention is `@` followed by 1-30 of `[A-Za-z0-9_]`, not preceded by `[A-Za-z0-9_.+-]` (so not inside a word or an
/// e-mail address such as `ann@example.com`) and not followed by another handle character (`@` + 31 of them is no
/// mention, nor is one whose last letter carries a combining mark left after NFC). A hashtag is `#` followed by
/// letters, digits, combining marks or `_` (any script), at least one letter, at most 100 characters, not preceded by
/// a letter, digit, mark or `_`; it is stored lowercased without the `#`.
/// Mentions and hashtags are kept once each (mentions compared case-insensitively), in order of appearance, at most
/// `maxMentions` and `maxHashtags`.
public struct PostText: Sendable, Equatable {
    /// The stored text: NFC, line feeds only, trimmed.
    public var text: String
    /// Grapheme clusters in `text`.
    public var characters: Int
    /// The mentioned handles as typed (without `@`), first occurrence of each, at most `maxMentions`.
    public var mentions: [String]
    /// The hashtags, lowercased, without `#`, at most `maxHashtags`.
    public var hashtags: [String]

    public init(text: String, characters: Int, mentions: [String], hashtags: [String]) {
        self.text = text
        self.characters = characters
        self.mentions = mentions
        self.hashtags = hashtags
    }

    /// Why a text is refused (answered `invalid_text` with `message`).
    public enum Problem: Error, Sendable, Equatable {
        case empty
        case tooLong(maxCharacters: Int)
        case tooManyBytes(maxBytes: Int)
        case controlCharacter(UInt32)

        public var message: String {
            switch self {
            case .empty: return "text is empty"
            case .tooLong(let most): return "text is longer than \(most) characters"
            case .tooManyBytes(let most): return "text is longer than \(most) bytes (UTF-8)"
            case .controlCharacter(let v):
                let hex = String(v, radix: 16, uppercase: true)
                let code = String(repeating: "0", count: max(0, 4 - hex.count)) + hex
                return "text contains a control character (U+\(code))"
            }
        }
    }

    public static let maxMentions = 10
    public static let maxHashtags = 10
    public static let maxHandleLength = 30
    public static let maxHashtagLength = 100

    /// The byte limit that goes with a character limit: 32 bytes per character leaves room for the longest emoji
    /// sequences people type (a family emoji is 25 bytes) and bounds "a" + thousands of combining marks.
    public static func maxBytes(forCharacters characters: Int) -> Int { max(64, characters * 32) }

    /// Normalizes and checks `raw`.
    /// - Parameters:
    ///   - maxCharacters: most grapheme clusters (`--max-post-length`, 280).
    ///   - allowsEmpty: an empty text is acceptable (the post carries a voice clip).
    public static func parse(_ raw: String, maxCharacters: Int, allowsEmpty: Bool = false) -> Result<PostText, Problem>
    {
        let maxBytes = maxBytes(forCharacters: maxCharacters)
        if raw.utf8.count > maxBytes { return .failure(.tooManyBytes(maxBytes: maxBytes)) }
        var cleaned = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in raw.unicodeScalars {
            let v = scalar.value
            if v == 0x0D {
                cleaned.append("\n")
                previousWasCR = true
                continue
            }
            defer { previousWasCR = false }
            if v == 0x0A {
                if !previousWasCR { cleaned.append(scalar) }
                continue
            }
            if v < 0x20 || (0x7F..<0xA0).contains(v) { return .failure(.controlCharacter(v)) }
            cleaned.append(scalar)
        }
        let text = String(cleaned).precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespacesAndNewlines)
        // NFC may grow a string (rarely); the stored text obeys the byte limit too.
        if text.utf8.count > maxBytes { return .failure(.tooManyBytes(maxBytes: maxBytes)) }
        if text.isEmpty && !allowsEmpty { return .failure(.empty) }
        var characters = 0
        for _ in text {
            characters += 1
            if characters > maxCharacters { return .failure(.tooLong(maxCharacters: maxCharacters)) }
        }
        let scalars = Array(text.unicodeScalars)
        return .success(
            PostText(
                text: text, characters: characters, mentions: mentions(in: scalars), hashtags: hashtags(in: scalars)))
    }

    /// `[A-Za-z0-9_]`.
    static func isHandleCharacter(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x5F: return true
        default: return false
        }
    }

    /// The mentions of `scalars` (see the type's rules).
    static func mentions(in scalars: [Unicode.Scalar]) -> [String] {
        var found: [String] = []
        var seen: Set<String> = []
        var i = 0
        while i < scalars.count, found.count < maxMentions {
            defer { i += 1 }
            guard scalars[i] == "@" else { continue }
            if i > 0 {
                let p = scalars[i - 1]
                if isHandleCharacter(p) || p == "." || p == "+" || p == "-" { continue }
            }
            var j = i + 1
            while j < scalars.count, isHandleCharacter(scalars[j]), j - i <= maxHandleLength + 1 { j += 1 }
            let length = j - i - 1
            // A combining mark after the run belongs to its last letter ("@ann\u{301}" is not @ann).
            let marked = j < scalars.count && isMark(scalars[j])
            guard (1...maxHandleLength).contains(length), !marked else {
                i = j - 1
                continue
            }
            var handle = String.UnicodeScalarView()
            handle.append(contentsOf: scalars[(i + 1)..<j])
            let typed = String(handle)
            if seen.insert(typed.lowercased()).inserted { found.append(typed) }
            i = j - 1
        }
        return found
    }

    /// A letter, digit (Nd), combining mark or `_`: what a hashtag is made of and what may not come before its `#`.
    static func isTagCharacter(_ s: Unicode.Scalar) -> Bool {
        if s == "_" { return true }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .nonspacingMark,
            .spacingMark, .enclosingMark:
            return true
        default: return false
        }
    }

    static func isMark(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    static func isLetter(_ s: Unicode.Scalar) -> Bool {
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: return true
        default: return false
        }
    }

    /// The hashtags of `scalars`, lowercased (see the type's rules).
    static func hashtags(in scalars: [Unicode.Scalar]) -> [String] {
        var found: [String] = []
        var seen: Set<String> = []
        var i = 0
        while i < scalars.count, found.count < maxHashtags {
            defer { i += 1 }
            guard scalars[i] == "#" else { continue }
            if i > 0, isTagCharacter(scalars[i - 1]) { continue }
            var j = i + 1
            var letters = false
            while j < scalars.count, isTagCharacter(scalars[j]) {
                if isLetter(scalars[j]) { letters = true }
                j += 1
            }
            defer { i = j - 1 }
            guard letters else { continue }
            var tag = String.UnicodeScalarView()
            tag.append(contentsOf: scalars[(i + 1)..<j])
            let text = String(tag)
            guard text.count <= maxHashtagLength else { continue }
            let lowered = text.lowercased()
            if seen.insert(lowered).inserted { found.append(lowered) }
        }
        return found
    }

    /// A `tag` parameter of `timeline.hashtag` as stored (without `#`, lowercased), or nil when it is no hashtag.
    public static func normalizedTag(_ tag: String) -> String? {
        var raw = tag
        if raw.hasPrefix("#") { raw.removeFirst() }
        let nfc = raw.precomposedStringWithCanonicalMapping
        let scalars = Array(nfc.unicodeScalars)
        guard !scalars.isEmpty, scalars.allSatisfy(isTagCharacter), scalars.contains(where: isLetter),
            nfc.count <= maxHashtagLength
        else {
            return nil
        }
        return nfc.lowercased()
    }
}
