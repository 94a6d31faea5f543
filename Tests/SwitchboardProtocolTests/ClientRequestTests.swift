//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardProtocol

/// One request of every op.
let everyRequest: [ClientRequest] = [
    .register(.init(phone: "+1 555 123 4567", password: "tr0ub4dor&3", displayName: "Ann Lee", device: "laptop")),
    .login(.init(phone: "+15551234567", password: "tr0ub4dor&3", device: "phone")),
    .authenticate(.init(token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")),
    .logout,
    .ping,
    .sessionsList,
    .sessionsRevoke(.init(sessionId: 42)),
    .profileGet(.init()),
    .profileGet(.init(userId: 7)),
    .profileUpdate(.init(displayName: "Ann \"the\" Lee ✓")),
    .friendsRequest(.init(phone: "+442079460958")),
    .friendsRequest(.init(userId: 9)),
    .friendsAccept(.init(requestId: 3)),
    .friendsDecline(.init(requestId: 4)),
    .friendsCancel(.init(requestId: 5)),
    .friendsRemove(.init(userId: 9)),
    .friendsList,
    .friendsRequests,
    .contactsMatch(.init(phones: ["+15551234567", "020 7946 0958", ""])),
]

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

func decodeRequest(_ json: String) -> Result<(id: RequestID, request: ClientRequest), ProtocolError> {
    ProtocolCodec.decodeRequest(Array(json.utf8))
}

func failure(_ json: String) -> ProtocolError? {
    if case .failure(let e) = decodeRequest(json) { return e }
    return nil
}

@Suite struct ClientRequestTests {
    @Test func everyOpIsCovered() {
        #expect(Set(everyRequest.map(\.op)) == Set(ClientRequest.Op.allCases))
        #expect(ClientRequest.Op.allCases.filter(\.isAuthenticationOp) == [.register, .login, .authenticate])
    }

    @Test(arguments: everyRequest)
    func roundTrip(request: ClientRequest) throws {
        for id in [RequestID.int(17), .string("req-1")] {
            let bytes = ProtocolCodec.encodeRequest(id: id, request)
            let decoded = try decodeRequest(text(bytes)).get()
            #expect(decoded.id == id)
            #expect(decoded.request == request)
            // The untyped envelope path agrees on id and op.
            let envelope = try ProtocolCodec.decodeEnvelope(bytes).get()
            #expect(envelope.id == id && envelope.op == request.op.rawValue)
        }
    }

    @Test func wireFormIsSnakeCase() {
        let register = ClientRequest.register(
            .init(phone: "+15551234567", password: "pw", displayName: "Ann", device: "cli"))
        #expect(
            text(ProtocolCodec.encodeRequest(id: .int(1), register))
                == #"{"device":"cli","display_name":"Ann","id":1,"op":"register","password":"pw","phone":"+15551234567"}"#
        )
        #expect(text(ProtocolCodec.encodeRequest(id: .string("p"), .ping)) == #"{"id":"p","op":"ping"}"#)
        #expect(
            text(ProtocolCodec.encodeRequest(id: .int(2), .friendsAccept(.init(requestId: 3))))
                == #"{"id":2,"op":"friends.accept","request_id":3}"#)
    }

    @Test func decodesDocumentedExamples() throws {
        let r = try decodeRequest(
            #"{"id": 1, "op": "register", "phone": "+1 555 123 4567", "password": "correct horse", "display_name": "Ann", "device": "cli", "extra": [1, {"x": null}]}"#
        ).get()
        #expect(r.id == .int(1))
        #expect(
            r.request
                == .register(
                    .init(phone: "+1 555 123 4567", password: "correct horse", displayName: "Ann", device: "cli")))
        #expect(try decodeRequest(#"{"op":"profile.get","id":"a"}"#).get().request == .profileGet(.init(userId: nil)))
        #expect(
            try decodeRequest(#"{"id":2,"op":"profile.get","user_id":null}"#).get().request
                == .profileGet(.init(userId: nil)))
        #expect(
            try decodeRequest(#"{"id":3,"op":"friends.request","user_id":12}"#).get().request
                == .friendsRequest(.init(userId: 12)))
        // Parameters of ops without any are ignored.
        #expect(try decodeRequest(#"{"id":4,"op":"ping","anything":true}"#).get().request == .ping)
        // Whitespace and key order do not matter; large ids keep their value.
        #expect(
            try decodeRequest(" {\n\"op\" : \"logout\" ,\t\"id\" : 9223372036854775807 } ").get().id == .int(Int64.max))
    }

    @Test func envelopeErrors() {
        #expect(failure("not json") == ProtocolError(id: nil, code: .badRequest, message: "malformed JSON"))
        #expect(failure("") == ProtocolError(id: nil, code: .badRequest, message: "malformed JSON"))
        #expect(failure(#"{"id": 1, "op": "ping""#)?.code == .badRequest)
        #expect(failure("[1,2]") == ProtocolError(id: nil, code: .badRequest, message: "a request is a JSON object"))
        #expect(failure("42") == ProtocolError(id: nil, code: .badRequest, message: "a request is a JSON object"))
        #expect(failure(#"{"op":"ping"}"#) == ProtocolError(id: nil, code: .badRequest, message: "missing field id"))
        for badID in ["true", "null", "1.5", "[1]", "{}", "\"" + String(repeating: "x", count: 65) + "\"", "1e30"] {
            let e = failure(#"{"id":\#(badID),"op":"ping"}"#)
            #expect(e?.code == .badRequest && e?.id == nil, "id \(badID)")
        }
        #expect(failure(#"{"id":7}"#) == ProtocolError(id: .int(7), code: .badRequest, message: "missing field op"))
        #expect(
            failure(#"{"id":7,"op":3}"#)
                == ProtocolError(id: .int(7), code: .badRequest, message: "field op has the wrong type"))
        #expect(
            failure(#"{"id":"x","op":"messages.send"}"#)
                == ProtocolError(id: .string("x"), code: .unknownOp, message: "unknown op messages.send"))
        #expect(failure(#"{"id":"x","op":""}"#)?.code == .unknownOp)
        let big =
            #"{"id":1,"op":"ping","pad":""# + String(repeating: "a", count: ProtocolCodec.maxRequestBytes) + #""}"#
        #expect(failure(big)?.code == .payloadTooLarge)
    }

    @Test func parameterErrorsNameTheField() {
        #expect(
            failure(#"{"id":1,"op":"register","phone":"+1555","password":"x","device":"d"}"#)
                == ProtocolError(id: .int(1), code: .badRequest, message: "missing field display_name"))
        #expect(
            failure(#"{"id":2,"op":"sessions.revoke","session_id":"5"}"#)
                == ProtocolError(id: .int(2), code: .badRequest, message: "field session_id has the wrong type"))
        #expect(
            failure(#"{"id":3,"op":"sessions.revoke","session_id":null}"#)
                == ProtocolError(id: .int(3), code: .badRequest, message: "field session_id has the wrong type"))
        #expect(
            failure(#"{"id":4,"op":"contacts.match","phones":["+1555",5]}"#)
                == ProtocolError(id: .int(4), code: .badRequest, message: "field phones[1] has the wrong type"))
        #expect(
            failure(#"{"id":5,"op":"friends.accept","request_id":1.5}"#)
                == ProtocolError(
                    id: .int(5), code: .badRequest,
                    message: "a field has an invalid value (integers must be whole and fit in 64 bits)"))
        #expect(
            failure(#"{"id":6,"op":"authenticate"}"#)
                == ProtocolError(id: .int(6), code: .badRequest, message: "missing field token"))
        for both in [
            #"{"id":7,"op":"friends.request"}"#, #"{"id":7,"op":"friends.request","phone":"+1555","user_id":3}"#,
        ] {
            #expect(
                failure(both)
                    == ProtocolError(id: .int(7), code: .badRequest, message: "give exactly one of phone and user_id"))
        }
        // Injection-shaped strings are only strings.
        let odd = #"{"id":8,"op":"login","phone":"'; DROP TABLE users; --","password":"\u0000","device":"<script>"}"#
        #expect(
            (try? decodeRequest(odd).get().request)
                == .login(.init(phone: "'; DROP TABLE users; --", password: "\u{0}", device: "<script>")))
    }

    @Test func descriptionsRedactSecrets() {
        let secret = "hunter2-secret"
        let requests: [ClientRequest] = [
            .register(.init(phone: "+1", password: secret, displayName: "A", device: "d")),
            .login(.init(phone: "+1", password: secret, device: "d")),
            .authenticate(.init(token: secret)),
        ]
        for r in requests {
            #expect(!"\(r)".contains(secret))
            #expect(!String(describing: r).contains(secret))
            #expect("\(r)".hasPrefix(r.op.rawValue))
        }
        #expect(
            !"\(ClientRequest.RegisterParams(phone: "+1", password: secret, displayName: "A", device: "d"))".contains(
                secret))
        #expect(!"\(ClientRequest.LoginParams(phone: "+1", password: secret, device: "d"))".contains(secret))
        #expect(!"\(ClientRequest.AuthenticateParams(token: secret))".contains(secret))
        #expect(!"\(SessionCredentials(userId: 1, sessionId: 2, sessionToken: secret))".contains(secret))
    }

    @Test func closeCodes() {
        #expect(
            ProtocolCloseCode.allCases.map(\.rawValue) == [
                1000, 1001, 1002, 1007, 1008, 1009, 1011, 1013, 4001, 4002, 4003,
            ])
    }
}
