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

    @Test func theHandWrittenEventMatchesTheProtocolEncoder() throws {
        let message = ChatMessage(
            id: 42, conversationId: 7, seq: 3, senderId: nil, kind: .system,
            system: SystemEvent(event: "member_added", actorId: 1, userIds: [2]), ts: "2026-11-23T10:00:00.123Z")
        let text = ChatMessage(
            id: 43, conversationId: 7, seq: 4, senderId: 1, kind: .text, text: "quote \" backslash \\ newline \n tab \t bell \u{7} é 👍",
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
