//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardProtocol
import Testing

@Suite("Message text and JSON")
struct MessageTextTests {
    @Test func textRules() {
        #expect(MessageText.problem("hello\nworld\ttab", maxCharacters: 20) == nil)
        #expect(MessageText.problem("", maxCharacters: 20) != nil)
        #expect(MessageText.problem("   \n ", maxCharacters: 20) != nil)
        #expect(MessageText.problem("a\u{0}b", maxCharacters: 20) != nil)
        #expect(MessageText.problem("a\u{1B}[31m", maxCharacters: 20) != nil)
        #expect(MessageText.problem("a\u{85}", maxCharacters: 20) != nil)
        // Characters, not bytes or scalars: a family emoji is one character.
        #expect(MessageText.problem("👨‍👩‍👧" + String(repeating: "é", count: 3), maxCharacters: 4) == nil)
        #expect(MessageText.problem(String(repeating: "x", count: 5), maxCharacters: 4) != nil)
    }

    @Test func storedTextChecksBytesAsWellAsCharactersAndNamesTheRule() {
        let name = TextRule(field: "display_name", maxCharacters: 4, maxBytes: 16)
        #expect(StoredText.problem("Ann", name) == nil)
        #expect(StoredText.problem("😀😀😀😀", name) == nil)  // 4 characters, 16 bytes
        #expect(StoredText.problem("😀😀😀😀😀", name) == "display_name is longer than 16 bytes (UTF-8)")
        // One character of 1 + 2 x 20,000 bytes: the byte limit catches it.
        #expect(
            StoredText.problem("a" + String(repeating: "\u{301}", count: 20_000), name)
                == "display_name is longer than 16 bytes (UTF-8)")
        #expect(StoredText.problem("abcde", name) == "display_name is longer than 4 characters")
        #expect(StoredText.problem("", name) == "display_name is empty")
        #expect(StoredText.problem("  ", name) == "display_name is only white space")
        #expect(StoredText.problem("a\u{0}", name) == "display_name contains U+0000")
        #expect(StoredText.problem("a\tb", name) == "display_name contains a control character (U+0009)")
        #expect(StoredText.problem("a\u{2028}", name) == "display_name contains a control character (U+2028)")
        #expect(StoredText.problem("a\u{9F}", name) == "display_name contains a control character (U+009F)")
        let text = MessageText.rule(maxCharacters: 10, maxBytes: 40)
        #expect(StoredText.problem("a\tb\r\nc", text) == nil)
        #expect(StoredText.problem("a\u{0}", text) == "text contains U+0000")
        let id = TextRule(field: "client_id", maxCharacters: 4, maxBytes: 4, allowsBlank: true)
        #expect(StoredText.problem(" ", id) == nil)
        #expect(StoredText.problem("ééé", id) == "client_id is longer than 4 bytes (UTF-8)")
        #expect(StoredText.containsNUL("pass\u{0}word"))
        #expect(!StoredText.containsNUL("password"))
    }

    @Test func theHandWrittenEventMatchesTheProtocolEncoder() throws {
        let message = ChatMessage(
            id: 42, conversationId: 7, seq: 3, senderId: nil, kind: .system,
            system: SystemEvent(event: "member_added", actorId: 1, userIds: [2]), ts: "2026-11-23T10:00:00.123Z")
        let text = ChatMessage(
            id: 43, conversationId: 7, seq: 4, senderId: 1, kind: .text,
            text: "quote \" backslash \\ newline \n tab \t bell \u{7} é 👍",
            clientId: "c-1", ts: "2026-11-23T10:00:00.124Z")
        for m in [message, text] {
            let handWritten = try JSONSerialization.jsonObject(with: Data(m.eventJSON)) as? NSDictionary
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            let viaCodable = try JSONSerialization.jsonObject(with: encoder.encode(["message": m])) as? NSDictionary
            #expect(handWritten?["ev"] as? String == "message")
            #expect(handWritten?["message"] as? NSDictionary == viaCodable?["message"] as? NSDictionary)
        }
        // Decodes back.
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        struct Event: Decodable { var message: ChatMessage }
        #expect(try decoder.decode(Event.self, from: Data(text.eventJSON)).message == text)
    }
}
