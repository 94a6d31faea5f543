//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardProtocol

/// A request that cannot be decoded whole is answered with the id its first bytes show (`re`), found by a bounded
/// scan of the frame's start (`LeadingRequestID`).
@Suite struct LeadingRequestIDTests {
    static let big = String(repeating: "x", count: ProtocolCodec.maxRequestBytes)

    func refusal(_ frame: String) -> ProtocolError? {
        if case .failure(let error) = ProtocolCodec.decodeEnvelope(Array(frame.utf8)) { return error }
        return nil
    }

    @Test func anOversizeRequestKeepsTheIdItStartsWith() {
        for (frame, id) in [
            (#"{"id":7,"op":"messages.send","text":"\#(Self.big)"}"#, RequestID.int(7)),
            (#" { "id" : -12 , "text":"\#(Self.big)"}"#, .int(-12)),
            (#"{"op":"messages.send","id":"r-1","text":"\#(Self.big)"}"#, .string("r-1")),
            (#"{"conversation_id":4,"op":"messages.send","id":9,"text":"\#(Self.big)"}"#, .int(9)),
        ] {
            let error = refusal(frame)
            #expect(error?.code == .payloadTooLarge)
            #expect(error?.id == id, "\(frame.prefix(60))")
        }
        // Only what the full decode would accept as an id, and only at the start.
        for frame in [
            #"{"text":"\#(Self.big)","id":7}"#, #"{"id":1.5,"text":"\#(Self.big)"}"#,
            #"{"id":"\#(String(repeating: "i", count: 65))","text":"\#(Self.big)"}"#,
            #"{"id":99999999999999999999,"text":"\#(Self.big)"}"#, #"{"id":"a\"b","text":"\#(Self.big)"}"#,
            #"{"op":"\#(String(repeating: "o", count: 300))","id":3,"text":"\#(Self.big)"}"#,
            #"["id",7,"\#(Self.big)"]"#,
        ] {
            let error = refusal(frame)
            #expect(error?.code == .payloadTooLarge)
            #expect(error?.id == nil, "\(frame.prefix(60))")
        }
        // Decoded exactly as well (the scanner's reference path).
        let exact = ProtocolCodec.decodeEnvelopeExactly(Array(#"{"id":7,"text":"\#(Self.big)"}"#.utf8))
        #expect((try? exact.get()) == nil)
        if case .failure(let error) = exact { #expect(error.id == .int(7)) }
    }

    @Test func malformedJSONAfterTheIdKeepsTheId() {
        #expect(
            refusal(#"{"id":5,"op":"ping","x":}"#)
                == ProtocolError(id: .int(5), code: .badRequest, message: "malformed JSON"))
        // A lone surrogate escape: not a string Foundation reads; refused with the id (by the envelope when the
        // surrogate is in `op`, by the parameters otherwise).
        for frame in [
            #"{"id":6,"op":"messages.send","conversation_id":1,"text":"a\ud800b"}"#,
            #"{"id":6,"op":"messages.send","conversation_id":1,"text":"\udfff\ud800"}"#,
            #"{"id":6,"op":"x\ud800","text":"a"}"#,
        ] {
            #expect(failure(frame)?.id == .int(6), "\(frame)")
            #expect(failure(frame)?.code == .badRequest, "\(String(describing: failure(frame)))")
            #expect(
                failure(frame)?.message.hasPrefix("malformed JSON") == true, "\(String(describing: failure(frame)))")
        }
        #expect(refusal("not json")?.id == nil)
        // Truncated after the id: the id was readable.
        #expect(
            refusal(#"{"id": 1, "op": "ping""#)
                == ProtocolError(id: .int(1), code: .badRequest, message: "malformed JSON"))
        #expect(refusal(#"{"id": 1"#)?.id == nil)
    }
}
