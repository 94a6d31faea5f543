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

struct LoginParams: Decodable {
    var phone: String
    var password: String
    var device: String
}

struct Profile: Encodable {
    var userId: Int64
    var displayName: String
}

@Suite struct ProtocolCodecTests {
    func decode(_ text: String) -> Result<RequestEnvelope, ProtocolError> {
        ProtocolCodec.decodeEnvelope(Array(text.utf8))
    }

    @Test func envelopesWithStringAndIntIDs() throws {
        let a = try decode(#"{"id": 7, "op": "ping"}"#).get()
        #expect(a.id == .int(7) && a.op == "ping")
        let b = try decode(#"{"op": "login", "id": "r-1", "phone": "+15551234567"}"#).get()
        #expect(b.id == .string("r-1") && b.op == "login")
    }

    @Test func badRequests() {
        #expect(decode("not json").failureCode == .badRequest)
        #expect(decode("[1,2]").failureCode == .badRequest)
        #expect(decode(#"{"op": "ping"}"#).failureCode == .badRequest)
        #expect(decode(#"{"id": true, "op": "ping"}"#).failureCode == .badRequest)
        // The id is recovered when the op is missing, so the error reply can reference it.
        guard case .failure(let e) = decode(#"{"id": 3}"#) else {
            Issue.record("accepted")
            return
        }
        #expect(e.id == .int(3) && e.message == "missing field op")
        // ... and when the op is not a string (it was answered with `re: null`).
        for op in ["5", "[]", "{}", "true"] {
            guard case .failure(let e) = decode(#"{"id": "r", "op": \#(op)}"#) else {
                Issue.record("accepted op \(op)")
                continue
            }
            #expect(e.id == .string("r") && e.message == "field op has the wrong type", "op \(op)")
        }
        let big = "{\"id\":1,\"op\":\"x\",\"pad\":\"" + String(repeating: "a", count: 70_000) + "\"}"
        #expect(decode(big).failureCode == .payloadTooLarge)
    }

    @Test func parametersNameTheMissingField() throws {
        let envelope = try decode(#"{"id": 1, "op": "login", "phone": "+1555", "device": "cli"}"#).get()
        guard case .failure(let e) = ProtocolCodec.decodeParameters(LoginParams.self, from: envelope) else {
            Issue.record("decoded")
            return
        }
        #expect(e.code == .badRequest && e.message == "missing field password" && e.id == .int(1))
        let typed = try decode(#"{"id": 1, "op": "login", "phone": 5, "password": "x", "device": "cli"}"#).get()
        guard case .failure(let t) = ProtocolCodec.decodeParameters(LoginParams.self, from: typed) else {
            Issue.record("decoded")
            return
        }
        #expect(t.message == "field phone has the wrong type")
        // SQL-injection-shaped input is just a string.
        let odd = try decode(
            #"{"id": 2, "op": "login", "phone": "'; DROP TABLE users; --", "password": "x", "device": "cli"}"#
        ).get()
        #expect(
            try ProtocolCodec.decodeParameters(LoginParams.self, from: odd).get().phone == "'; DROP TABLE users; --")
    }

    @Test func encodings() {
        let reply = String(
            decoding: ProtocolCodec.encodeReply(id: .string("a"), result: Profile(userId: 5, displayName: "Ann")),
            as: UTF8.self)
        #expect(reply == #"{"ok":{"display_name":"Ann","user_id":5},"re":"a"}"#)
        let error = String(
            decoding: ProtocolCodec.encodeError(
                id: .int(9), code: .rateLimited, message: "slow down", extra: ["retry_after_ms": 1500]), as: UTF8.self)
        #expect(error == #"{"error":{"code":"rate_limited","message":"slow down","retry_after_ms":1500},"re":9}"#)
        let anonymous = String(
            decoding: ProtocolCodec.encodeError(id: nil, code: .badRequest, message: "malformed JSON"), as: UTF8.self)
        #expect(anonymous == #"{"error":{"code":"bad_request","message":"malformed JSON"},"re":null}"#)
        let event = String(
            decoding: ProtocolCodec.encodeEvent("profile.updated", Profile(userId: 5, displayName: "Ann")),
            as: UTF8.self)
        #expect(event == #"{"display_name":"Ann","ev":"profile.updated","user_id":5}"#)
    }

    @Test func everyErrorCodeIsSnakeCase() {
        for code in ErrorCode.allCases {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" })
        }
    }

    @Test func docsListEveryErrorCode() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/protocol.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for code in ErrorCode.allCases {
            #expect(text.contains("`\(code.rawValue)`"), "docs/protocol.md does not document \(code.rawValue)")
        }
    }
}

extension Result where Success == RequestEnvelope, Failure == ProtocolError {
    var failureCode: ErrorCode? {
        if case .failure(let e) = self { return e.code }
        return nil
    }
}
