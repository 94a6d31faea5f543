//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardDomain

private func parsed(_ text: String, max: Int = 280, allowsEmpty: Bool = false) -> PostText? {
    try? PostText.parse(text, maxCharacters: max, allowsEmpty: allowsEmpty).get()
}

private func problem(_ text: String, max: Int = 280, allowsEmpty: Bool = false) -> PostText.Problem? {
    if case .failure(let p) = PostText.parse(text, maxCharacters: max, allowsEmpty: allowsEmpty) { return p }
    return nil
}

@Suite struct PostTextTests {
    @Test func countsGraphemeClustersNotScalarsOrBytes() {
        let family = "👨‍👩‍👧"  // 5 scalars, 18 bytes, one character
        #expect(parsed(family)?.characters == 1)
        #expect(parsed(String(repeating: family, count: 280))?.characters == 280)
        #expect(problem(String(repeating: family, count: 281)) == .tooLong(maxCharacters: 280))
        #expect(parsed("👍🏽 é")?.characters == 3)
        #expect(parsed(String(repeating: "x", count: 280)) != nil)
        #expect(problem(String(repeating: "x", count: 281)) == .tooLong(maxCharacters: 280))
        #expect(problem(String(repeating: "x", count: 11), max: 10) == .tooLong(maxCharacters: 10))
        // "a" + thousands of combining marks is one character but too many bytes.
        #expect(problem("a" + String(repeating: "\u{301}", count: 10_000)) == .tooManyBytes(maxBytes: 280 * 32))
    }

    @Test func normalizesToNFCAndTrims() {
        let decomposed = "Cafe\u{301}"
        let post = parsed("  \n\(decomposed)\n  ")
        #expect(post?.text == "Caf\u{E9}")
        #expect(post?.text.unicodeScalars.count == 4)
        #expect(parsed("a\r\nb\rc")?.text == "a\nb\nc")
        #expect(parsed("line one\n\nline two")?.text == "line one\n\nline two")
    }

    @Test func refusesControlCharactersButNewlineAndEmptyText() {
        #expect(problem("a\tb") == .controlCharacter(9))
        #expect(problem("a\u{0}b") == .controlCharacter(0))
        #expect(problem("bell\u{7}") == .controlCharacter(7))
        #expect(problem("c1\u{85}") == .controlCharacter(0x85))
        #expect(problem("del\u{7F}") == .controlCharacter(0x7F))
        #expect(problem("") == .empty)
        #expect(problem("   \n  ") == .empty)
        #expect(parsed("", allowsEmpty: true)?.text == "")
        #expect(PostText.Problem.controlCharacter(9).message == "text contains a control character (U+0009)")
    }

    @Test func mentionsNotInsideWordsOrEmailAddresses() {
        #expect(parsed("hi @ann and @Bob_2!")?.mentions == ["ann", "Bob_2"])
        #expect(parsed("write to ann@example.com or bob.@x")?.mentions == [])
        #expect(parsed("a+@ann b-@bob c.@cat d_@dan e9@eve")?.mentions == [])
        #expect(parsed("(@ann) @bob, @cat. \"@dan\"")?.mentions == ["ann", "bob", "cat", "dan"])
        #expect(parsed("@@ann")?.mentions == ["ann"])
        #expect(parsed("@" + String(repeating: "a", count: 30))?.mentions == [String(repeating: "a", count: 30)])
        #expect(parsed("@" + String(repeating: "a", count: 31))?.mentions == [])
        #expect(parsed("@ @- @")?.mentions == [])
        // A mark (left after NFC) belongs to the last letter: not @ann.
        #expect(parsed("@ann\u{20DD} @bob")?.mentions == ["bob"])
        // Once each, case-insensitively, the first spelling kept.
        #expect(parsed("@Ann @ann @ANN")?.mentions == ["Ann"])
        #expect(parsed("café@ann")?.mentions == ["ann"])  // only [A-Za-z0-9_.+-] before the @ blocks it
        let many = (1...12).map { "@user\($0)" }.joined(separator: " ")
        #expect(parsed(many)?.mentions == (1...10).map { "user\($0)" })
    }

    @Test func unicodeHashtagsLowercasedWithALetter() {
        #expect(
            parsed("#Swift and #café #東京 #русский #हिन्दी")?.hashtags == ["swift", "café", "東京", "русский", "हिन्दी"])
        #expect(parsed("#123 #_ #1a #a_1")?.hashtags == ["1a", "a_1"])
        #expect(parsed("word#tag x#y #ok")?.hashtags == ["ok"])
        #expect(parsed("##double #a#b")?.hashtags == ["double", "a"])
        #expect(parsed("#Tag #tag #TAG")?.hashtags == ["tag"])
        #expect(parsed("#" + String(repeating: "a", count: 100))?.hashtags.count == 1)
        #expect(parsed("#" + String(repeating: "a", count: 101))?.hashtags == [])
        let many = (1...12).map { "#t\($0)" }.joined(separator: " ")
        #expect(parsed(many)?.hashtags.count == 10)
        // NFC first: a decomposed é tags the same as a composed one.
        #expect(parsed("#cafe\u{301}")?.hashtags == ["café"])
    }

    @Test func normalizedTagParameter() {
        #expect(PostText.normalizedTag("#Swift") == "swift")
        #expect(PostText.normalizedTag("東京") == "東京")
        #expect(PostText.normalizedTag("123") == nil)
        #expect(PostText.normalizedTag("") == nil)
        #expect(PostText.normalizedTag("a b") == nil)
        #expect(PostText.normalizedTag("#") == nil)
    }
}
