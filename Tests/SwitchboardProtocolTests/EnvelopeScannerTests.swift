//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardProtocol

/// The envelope scanner reads the common shape in one pass and declines everything else; whenever it reads,
/// JSONDecoder (the exact path) reads the same id and op.
@Suite struct EnvelopeScannerTests {
    static let read: [(String, RequestID, String)] = [
        (#"{"id":1,"op":"ping"}"#, .int(1), "ping"),
        (
            #" { "op" : "messages.send" , "id" : -42 , "conversation_id": 7, "text": "h\u00e9 \"q\" \\ / \n", "#
                + #""x": [1, 2.5e-3, {"a": null}], "t": true, "f": false } "#,
            .int(-42), "messages.send"
        ),
        (#"{"id":"abc","op":"sync","since":{"12":3}}"#, .string("abc"), "sync"),
        (#"{"id":9223372036854775807,"op":"x"}"#, .int(Int64.max), "x"),
        (#"{"id":-9223372036854775808,"op":"x"}"#, .int(Int64.min), "x"),
        (#"{"id":"","op":"ping","emoji":"👍🏽"}"#, .string(""), "ping"),
        (#"{"id":0,"op":"ping","nested":[[[[[]]]]]}"#, .int(0), "ping"),
    ]

    static let declined: [String] = [
        #"{"id":1}"#, #"{"op":"ping"}"#, #"{"id":1,"op":""}"#, #"{"id":1,"op":5}"#, #"{"id":1.0,"op":"ping"}"#,
        #"{"id":1e2,"op":"ping"}"#, #"{"id":01,"op":"ping"}"#, #"{"id":9223372036854775808,"op":"ping"}"#,
        #"{"id":1,"op":"p\u0069ng"}"#, #"{"id":"a\"b","op":"ping"}"#, #"{"id":1,"id":2,"op":"ping"}"#,
        #"{"id":1,"op":"ping","op":"x"}"#, #"{"id":1,"op":"ping",}"#, #"{"id":1,"op":"ping"} x"#,
        #"{"id":1,"op":"ping","a":[1,]}"#, #"{"id":1,"op":"ping","a":"\x"}"#, #"{"id":1,"op":"ping","a":"\ud800"}"#,
        #"{"id":1,"op":"ping","a":01}"#, #"{"id":1,"op":"ping","a":1.}"#, #"{"id":1,"op":"ping","a":tru}"#,
        #"[1]"#, #""x""#, "", "{", #"{"id":"\#(String(repeating: "x", count: 65))","op":"ping"}"#,
        #"{"id":1,"op":"ping","a":"#.appending(String(repeating: "[", count: 70)).appending(
            String(repeating: "]", count: 70)
        ).appending("}"),
    ]

    @Test func readsTheCommonShapeAsJSONDecoderDoes() throws {
        for (text, id, op) in Self.read {
            let bytes = Array(text.utf8)
            let scanned = try #require(EnvelopeScanner.scan(bytes), "declined \(text)")
            #expect(scanned.id == id && scanned.op == op, "\(text)")
            guard case .success(let exact) = ProtocolCodec.decodeEnvelopeExactly(bytes) else {
                Issue.record("JSONDecoder refused \(text)")
                continue
            }
            #expect(exact.id == id && exact.op == op, "\(text)")
        }
    }

    @Test func declinesEverythingElse() {
        for text in Self.declined {
            #expect(EnvelopeScanner.scan(Array(text.utf8)) == nil, "\(text)")
        }
        // Invalid UTF-8 inside a string, and a control character.
        #expect(
            EnvelopeScanner.scan(Array(#"{"id":1,"op":"ping","a":""#.utf8) + [0xC0, 0x80] + Array(#""}"#.utf8)) == nil)
        #expect(EnvelopeScanner.scan(Array(#"{"id":1,"op":"ping","a":""#.utf8) + [0x01] + Array(#""}"#.utf8)) == nil)
    }

    @Test func decodeEnvelopeAnswersAsBeforeForEveryDeclinedShape() {
        // The fast path changes no answer: a declined request gets exactly the exact path's result.
        for text in Self.declined {
            let bytes = Array(text.utf8)
            switch (ProtocolCodec.decodeEnvelope(bytes), ProtocolCodec.decodeEnvelopeExactly(bytes)) {
            case (.success(let a), .success(let b)): #expect(a.id == b.id && a.op == b.op, "\(text)")
            case (.failure(let a), .failure(let b)):
                #expect(a.code == b.code && a.message == b.message && a.id == b.id, "\(text)")
            default: Issue.record("the two paths disagree on \(text)")
            }
        }
    }
}
