//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardProtocol

/// `messages.send`'s parameters are read by a scanner (no JSONDecoder) in their common shape; whenever it
/// reads, JSONDecoder reads the same; everything else is declined to JSONDecoder.
@Suite struct SendParametersScannerTests {
    typealias P = Ops.MessagesSend.Parameters

    static let read: [(String, P)] = [
        (
            #"{"id":1,"op":"messages.send","conversation_id":12,"client_id":"c-7","text":"hi"}"#,
            P(conversationId: 12, clientId: "c-7", text: "hi")
        ),
        (
            #" { "op" : "messages.send", "id": "x", "user_id" : -3 , "#
                + #""text" : "h\u00e9 \"q\" \\ \/ \n\t\b\f\r \u0000 é 👍🏽" } "#,
            P(userId: -3, text: "hé \"q\" \\ / \n\t\u{8}\u{C}\r \u{0} é 👍🏽")
        ),
        (
            #"{"id":1,"op":"messages.send","conversation_id":null,"user_id":9223372036854775807,"#
                + #""voice_id":5,"text":null,"client_id":null}"#,
            P(userId: Int64.max, voiceId: 5)
        ),
        (#"{"op":"messages.send","id":1,"conversation_id":-0}"#, P(conversationId: 0)),
    ]

    static let declined: [String] = [
        // another key (camelCase would match through convertFromSnakeCase), a duplicate, another type
        #"{"id":1,"op":"messages.send","conversationId":12,"text":"hi"}"#,
        #"{"id":1,"op":"messages.send","conversation_id":12,"text":"hi","extra":1}"#,
        #"{"id":1,"op":"messages.send","conversation_id":12,"conversation_id":13,"text":"hi"}"#,
        #"{"id":1,"op":"messages.send","conversation_id":"12","text":"hi"}"#,
        #"{"id":1,"op":"messages.send","conversation_id":12.0,"text":"hi"}"#,
        #"{"id":1,"op":"messages.send","conversation_id":1e3,"text":"hi"}"#,
        #"{"id":1,"op":"messages.send","conversation_id":9223372036854775808,"text":"hi"}"#,
        #"{"id":1,"op":"messages.send","conversation_id":12,"text":5}"#,
        #"{"id":1,"op":"messages.send","conversation_id":12,"text":["hi"]}"#,
        // surrogate escapes and invalid JSON are JSONDecoder's to judge
        #"{"id":1,"op":"messages.send","conversation_id":12,"text":"\ud83d\udc4d"}"#,
        #"{"id":1,"op":"messages.send","conversation_id":12,"text":"hi"} x"#,
        #"{"id":1,"op":"messages.send","conversation_id":12,"te\u0078t":"hi"}"#,
        #"[1]"#, "",
    ]

    @Test func readsTheCommonShapeAsJSONDecoderDoes() throws {
        for (text, expected) in Self.read {
            let bytes = Array(text.utf8)
            let scanned = try #require(P.scanned(from: bytes), "declined \(text)")
            #expect(scanned == expected, "\(text)")
            let exact = try ProtocolCodec.requestDecoder().decode(P.self, from: Data(bytes))
            #expect(exact == scanned, "\(text)")
            #expect(Array((exact.text ?? "").utf8) == Array((scanned.text ?? "").utf8), "\(text)")
        }
    }

    @Test func declinesEverythingElse() {
        for text in Self.declined {
            #expect(P.scanned(from: Array(text.utf8)) == nil, "read \(text)")
        }
    }

    /// The router's decoder takes the scanner (a cast that failed silently once left every send on JSONDecoder).
    @Test func theRoutersDecoderUsesTheScanner() throws {
        let scan = try #require(ProtocolCodec.parameterScanner(P.self))
        #expect(
            scan(Array(#"{"id":1,"op":"messages.send","conversation_id":4,"text":"a"}"#.utf8))
                == P(conversationId: 4, text: "a"))
        #expect(ProtocolCodec.parameterScanner(Ops.MessagesHistory.Parameters.self) == nil)
        // Declined shapes still decode (exactly) through the router's decoder.
        let decode = ProtocolCodec.parameterDecoder(P.self)
        let bytes = Array(#"{"id":1,"op":"messages.send","conversationId":4,"text":"a"}"#.utf8)
        guard case .success(let envelope) = ProtocolCodec.decodeEnvelope(bytes), case .success(let p) = decode(envelope)
        else {
            Issue.record("not decoded")
            return
        }
        #expect(p == P(conversationId: 4, text: "a"))
    }
}
