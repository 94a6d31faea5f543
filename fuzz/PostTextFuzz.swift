//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Fuzzes the post text parser (issue 18, `PostText`): any bytes, read as UTF-8 (invalid sequences repaired), with a
// character limit the first byte picks. Invariants of an accepted text: NFC, trimmed, no control character but the
// line feed, within the character and byte limits, parsing it again gives the same answer; its mentions are 1-30
// handle characters each and appear in the text after an `@`, its hashtags are their own normal form; at most 10 of
// each. A refused text is refused again with a limit no larger.

import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPostText(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let first = bytes.first else { return 0 }
    let limit = [1, 5, 30, 280, 1000][Int(first) % 5]
    let raw = String(decoding: bytes.dropFirst(), as: UTF8.self)
    let allowsEmpty = first & 0x80 != 0
    switch PostText.parse(raw, maxCharacters: limit, allowsEmpty: allowsEmpty) {
    case .success(let post):
        precondition(post.text == post.text.precomposedStringWithCanonicalMapping, "not NFC")
        precondition(post.text == post.text.trimmingCharacters(in: .whitespacesAndNewlines), "not trimmed")
        precondition(allowsEmpty || !post.text.isEmpty, "empty accepted")
        precondition(post.characters == post.text.count && post.characters <= limit, "over the limit")
        precondition(post.text.utf8.count <= PostText.maxBytes(forCharacters: limit), "over the byte limit")
        precondition(
            !post.text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F..<0xA0).contains($0.value) },
            "control")
        precondition(
            post.mentions.count <= PostText.maxMentions && post.hashtags.count <= PostText.maxHashtags, "too many")
        for m in post.mentions {
            precondition(
                (1...30).contains(m.unicodeScalars.count) && m.unicodeScalars.allSatisfy(PostText.isHandleCharacter),
                "mention \(m)")
            let needle = Array(("@" + m).utf8)
            let hay = Array(post.text.utf8)
            precondition(
                hay.count >= needle.count
                    && (0...(hay.count - needle.count)).contains { Array(hay[$0..<($0 + needle.count)]) == needle },
                "mention not in the text")
        }
        for h in post.hashtags { precondition(PostText.normalizedTag(h) == h, "hashtag \(h) not normal") }
        precondition(Set(post.mentions.map { $0.lowercased() }).count == post.mentions.count, "repeated mention")
        precondition(Set(post.hashtags).count == post.hashtags.count, "repeated hashtag")
        guard case .success(let again) = PostText.parse(post.text, maxCharacters: limit, allowsEmpty: allowsEmpty)
        else {
            preconditionFailure("an accepted text refused the second time")
        }
        precondition(again == post, "parsing is not idempotent")
    case .failure(let problem):
        _ = problem.message
        if limit > 1 {
            precondition(
                (try? PostText.parse(raw, maxCharacters: 1, allowsEmpty: allowsEmpty).get()) == nil,
                "a smaller limit accepts")
        }
    }
    return 0
}
