//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Testing

@testable import SwitchboardProtocol

/// A request of a typed op, for the tests: its encoder and a check that decoded parameters equal its own.
struct SampleRequest: Sendable, CustomStringConvertible {
    /// The op.
    let op: any ProtocolOperation.Type
    /// `{"id": id, "op": name, ...parameters}` (`ProtocolCodec.encodeRequest`).
    let encode: @Sendable (RequestID) -> [UInt8]
    /// Whether decoded parameters are this request's.
    let matches: @Sendable (any Sendable) -> Bool

    init<Op: ProtocolOperation>(_ op: Op.Type, _ parameters: Op.Parameters) where Op.Parameters: Equatable {
        self.op = op
        encode = { id in ProtocolCodec.encodeRequest(id: id, Op.self, parameters) }
        matches = { decoded in (decoded as? Op.Parameters) == parameters }
    }

    var description: String { op.name }
}

/// One request of every account and friend op.
let everyRequest: [SampleRequest] = [
    SampleRequest(
        Ops.Register.self,
        .init(phone: "+1 555 123 4567", password: "tr0ub4dor&3", displayName: "Ann Lee", device: "laptop")),
    SampleRequest(
        Ops.Register.self,
        .init(phone: "+15551234567", password: "tr0ub4dor&3", displayName: "Ann", device: "laptop", code: "012345")),
    SampleRequest(Ops.Login.self, .init(phone: "+15551234567", password: "tr0ub4dor&3", device: "phone")),
    SampleRequest(Ops.VerificationStart.self, .init(phone: "+15551234567", purpose: "register")),
    SampleRequest(
        Ops.PasswordReset.self,
        .init(phone: "+15551234567", code: "012345", password: "tr0ub4dor&4", device: "phone")),
    SampleRequest(Ops.Authenticate.self, .init(token: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")),
    SampleRequest(Ops.Logout.self, Empty()),
    SampleRequest(Ops.Ping.self, Empty()),
    SampleRequest(Ops.SessionsList.self, Empty()),
    SampleRequest(Ops.SessionsRevoke.self, .init(sessionId: 42)),
    SampleRequest(Ops.ProfileGet.self, .init()),
    SampleRequest(Ops.ProfileGet.self, .init(userId: 7)),
    SampleRequest(Ops.ProfileUpdate.self, .init(displayName: "Ann \"the\" Lee ✓")),
    SampleRequest(Ops.FriendsRequest.self, .init(phone: "+442079460958")),
    SampleRequest(Ops.FriendsRequest.self, .init(userId: 9)),
    SampleRequest(Ops.FriendsAccept.self, .init(requestId: 3)),
    SampleRequest(Ops.FriendsDecline.self, .init(requestId: 4)),
    SampleRequest(Ops.FriendsCancel.self, .init(requestId: 5)),
    SampleRequest(Ops.FriendsRemove.self, .init(userId: 9)),
    SampleRequest(Ops.FriendsList.self, Empty()),
    SampleRequest(Ops.FriendsRequests.self, Empty()),
    SampleRequest(Ops.ContactsMatch.self, .init(phones: ["+15551234567", "020 7946 0958", ""])),
]

func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

/// A request decoded as the server's router decodes it: the envelope (`ProtocolCodec.decodeEnvelope`), the op
/// looked up in the schema (`unknown_op` otherwise) and the op's declared parameters (`parameterDecoder`).
func decodeRequest(_ json: String) -> Result<(id: RequestID, op: String, parameters: any Sendable), ProtocolError> {
    let envelope: RequestEnvelope
    switch ProtocolCodec.decodeEnvelope(Array(json.utf8)) {
    case .success(let e): envelope = e
    case .failure(let error): return .failure(error)
    }
    guard let op = ProtocolSchema.operation(named: envelope.op) else {
        return .failure(
            ProtocolError(id: envelope.id, code: .unknownOp, message: "unknown op \(envelope.op.prefix(64))"))
    }
    return op.decodedParameters(envelope).map { (id: envelope.id, op: envelope.op, parameters: $0) }
}

extension ProtocolOperation {
    /// This op's parameters from `envelope`, as the router decodes them.
    static func decodedParameters(_ envelope: RequestEnvelope) -> Swift.Result<any Sendable, ProtocolError> {
        parameterDecoder()(envelope).map { $0 }
    }
}

func failure(_ json: String) -> ProtocolError? {
    if case .failure(let e) = decodeRequest(json) { return e }
    return nil
}

/// The decoded parameters of `json` as `Op`'s, or nil.
func parameters<Op: ProtocolOperation>(_ json: String, _ op: Op.Type) -> Op.Parameters? {
    (try? decodeRequest(json).get()).flatMap { $0.parameters as? Op.Parameters }
}

/// Requests of the typed ops, encoded by `ProtocolCodec.encodeRequest` and decoded as the server does.
@Suite struct RequestCodingTests {
    @Test func everyOpIsCovered() {
        #expect(Set(everyRequest.map { $0.op.name }) == Set((Ops.accounts + Ops.friends).map { $0.name }))
        #expect(
            ProtocolSchema.operations.filter { $0.authentication == .authenticates }.map { $0.name }
                == ["register", "login", "authenticate", "verification.start", "password.reset"])
    }

    @Test(arguments: everyRequest)
    func roundTrip(request: SampleRequest) throws {
        for id in [RequestID.int(17), .string("req-1")] {
            let bytes = request.encode(id)
            let decoded = try decodeRequest(text(bytes)).get()
            #expect(decoded.id == id)
            #expect(request.matches(decoded.parameters))
            // The untyped envelope path agrees on id and op.
            let envelope = try ProtocolCodec.decodeEnvelope(bytes).get()
            #expect(envelope.id == id && envelope.op == request.op.name)
        }
    }

    @Test func wireFormIsSnakeCase() {
        let register = Ops.Register.Parameters(phone: "+15551234567", password: "pw", displayName: "Ann", device: "cli")
        #expect(
            text(ProtocolCodec.encodeRequest(id: .int(1), Ops.Register.self, register))
                == #"{"device":"cli","display_name":"Ann","id":1,"op":"register","password":"pw","#
                + #""phone":"+15551234567"}"#
        )
        #expect(
            text(ProtocolCodec.encodeRequest(id: .string("p"), Ops.Ping.self, Empty())) == #"{"id":"p","op":"ping"}"#)
        #expect(
            text(ProtocolCodec.encodeRequest(id: .int(2), Ops.FriendsAccept.self, .init(requestId: 3)))
                == #"{"id":2,"op":"friends.accept","request_id":3}"#)
    }

    @Test func decodesDocumentedExamples() throws {
        let r = try decodeRequest(
            #"{"id": 1, "op": "register", "phone": "+1 555 123 4567", "password": "correct horse", "#
                + #""display_name": "Ann", "device": "cli", "extra": [1, {"x": null}]}"#
        ).get()
        #expect(r.id == .int(1))
        #expect(
            r.parameters as? Ops.Register.Parameters
                == .init(phone: "+1 555 123 4567", password: "correct horse", displayName: "Ann", device: "cli"))
        #expect(parameters(#"{"op":"profile.get","id":"a"}"#, Ops.ProfileGet.self) == .init(userId: nil))
        #expect(parameters(#"{"id":2,"op":"profile.get","user_id":null}"#, Ops.ProfileGet.self) == .init(userId: nil))
        #expect(
            parameters(#"{"id":3,"op":"friends.request","user_id":12}"#, Ops.FriendsRequest.self) == .init(userId: 12))
        // Parameters of ops without any are ignored.
        #expect(parameters(#"{"id":4,"op":"ping","anything":true}"#, Ops.Ping.self) == Empty())
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
            failure(#"{"id":"x","op":"no.such.op"}"#)
                == ProtocolError(id: .string("x"), code: .unknownOp, message: "unknown op no.such.op"))
        // An empty op is a missing one on the server's path (only the removed `ClientRequest` decoder answered
        // `unknown_op`).
        #expect(failure(#"{"id":"x","op":""}"#)?.code == .badRequest)
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
        // Injection-shaped strings are only strings; a password may hold a control character, never U+0000.
        let odd = #"{"id":8,"op":"login","phone":"'; DROP TABLE users; --","password":"\u0007","device":"<script>"}"#
        #expect(
            parameters(odd, Ops.Login.self)
                == .init(phone: "'; DROP TABLE users; --", password: "\u{7}", device: "<script>"))
        #expect(
            failure(#"{"id":8,"op":"login","phone":"+1555","password":"a\u0000","device":"d"}"#)
                == ProtocolError(id: .int(8), code: .badRequest, message: "password contains U+0000"))
    }

    @Test func descriptionsRedactSecrets() {
        let secret = "hunter2-secret"
        let register = Ops.Register.Parameters(phone: "+1", password: secret, displayName: "A", device: "d")
        #expect(!"\(register)".contains(secret))
        #expect(!"\(Ops.Login.Parameters(phone: "+1", password: secret, device: "d"))".contains(secret))
        #expect(!"\(Ops.Authenticate.Parameters(token: secret))".contains(secret))
        #expect(!"\(SessionCredentials(userId: 1, sessionId: 2, sessionToken: secret))".contains(secret))
    }

    @Test func closeCodes() {
        #expect(
            ProtocolCloseCode.allCases.map(\.rawValue) == [
                1000, 1001, 1002, 1007, 1008, 1009, 1011, 1013, 4001, 4002, 4003,
            ])
    }
}
