//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardServer
import Testing

/// Issue 37, item 5: sign-up and password reset with a one-time code sent to the phone, through a local HTTP SMS
/// gateway (`SMSSink`) that the tests read the codes from.
@Suite("Phone verification", .serialized)
struct PhoneVerificationTests {
    /// A server requiring codes, sending them to `sink`; `adjust` changes the rest.
    static func start(
        _ sink: SMSSink, _ adjust: (inout PhoneVerificationSettings) -> Void = { _ in }
    ) throws -> (HubServer, Int, DatabaseRuntime) {
        try startProtocolServer {
            var v = PhoneVerificationSettings()
            v.mode = .required
            v.gateway.kind = .http
            v.gateway.url = sink.url
            v.gateway.bodyTemplate = #"{"to":"{phone}","code":"{code}","text":"{text}"}"#
            v.gateway.authHeader = "Authorization: Basic c2VjcmV0"
            v.gateway.timeout = 5
            adjust(&v)
            $0.phoneVerification = v
        }
    }

    static func register(_ c: ProtocolClient, _ phone: String, code: String?, password: String = "ample meadow 31")
        throws -> [String: Any]
    {
        var p: [String: Any] = ["phone": phone, "password": password, "display_name": "Ann", "device": "d"]
        if let code { p["code"] = code }
        return try c.call("register", p)
    }

    @Test func registerNeedsTheCodeSentToThePhone() throws {
        let sink = try SMSSink()
        defer { sink.close() }
        let (server, port, database) = try Self.start(sink)
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let c = try ProtocolClient(port: port)
        #expect(errorCode(try Self.register(c, phone, code: nil)) == "invalid_code")
        #expect(ok(try c.call("verification.start", ["phone": phone, "purpose": "register"])) != nil)
        let request = try sink.waitFor(1)[0]
        #expect(request.json["to"] == phone)
        #expect(request.head.contains("Authorization: Basic c2VjcmV0"))
        #expect(request.head.lowercased().contains("content-type: application/json"))
        let code = try #require(request.json["code"])
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        #expect(request.json["text"]?.contains(code) == true)
        let wrong = code == "000000" ? "000001" : "000000"
        #expect(errorCode(try Self.register(c, phone, code: wrong)) == "invalid_code")
        // A refused registration (a weak password) leaves the code usable.
        #expect(errorCode(try Self.register(c, phone, code: code, password: "qwerty")) == "weak_password")
        let credentials = try #require(ok(try Self.register(c, phone, code: code)))
        #expect(credentials["session_token"] is String)
        // Used up: another registration with it is refused.
        let other = try ProtocolClient(port: port)
        #expect(errorCode(try Self.register(other, phone, code: code)) == "invalid_code")
    }

    /// The answer is the same whether the number fits the purpose or not, and nothing is sent when it does not.
    @Test func startAnswersAlikeAndSendsOnlyWhenThePurposeFits() throws {
        let sink = try SMSSink()
        defer { sink.close() }
        let (server, port, database) = try Self.start(sink)
        defer { stop(server); database.close() }
        let taken = freshPhone()
        let c = try ProtocolClient(port: port)
        _ = try c.call("verification.start", ["phone": taken, "purpose": "register"])
        _ = try #require(ok(try Self.register(c, taken, code: try sink.code(after: 0))))
        let probe = try ProtocolClient(port: port)
        let takenRegister = try probe.call("verification.start", ["phone": taken, "purpose": "register"])
        let unknownReset = try probe.call("verification.start", ["phone": freshPhone(), "purpose": "reset"])
        let fresh = freshPhone()
        let freshRegister = try probe.call("verification.start", ["phone": fresh, "purpose": "register"])
        let takenReset = try probe.call("verification.start", ["phone": taken, "purpose": "reset"])
        for reply in [takenRegister, unknownReset, freshRegister, takenReset] {
            #expect(reply.keys.sorted() == ["ok", "re"] && (ok(reply)?.isEmpty ?? false))
        }
        // Only the two that fit were sent, in order (the sink is sequential).
        let sent = try sink.waitFor(3)
        #expect(sent.map { $0.json["to"] } == [taken, fresh, taken])
        #expect(sent[2].json["text"]?.contains("reset") == true)
        // A reset for an unknown number answers like a wrong code.
        #expect(
            errorCode(
                try probe.call(
                    "password.reset",
                    ["phone": freshPhone(), "code": "123456", "password": "ample meadow 77", "device": "d"]))
                == "invalid_code")
        #expect(errorCode(try probe.call("verification.start", ["phone": fresh, "purpose": "other"])) == "bad_request")
        #expect(
            errorCode(try probe.call("verification.start", ["phone": "not a number", "purpose": "register"]))
                == "invalid_phone")
    }

    @Test func wrongCodesUseUpTheCode() throws {
        let sink = try SMSSink()
        defer { sink.close() }
        let (server, port, database) = try Self.start(sink) { $0.attemptsPerCode = 2 }
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let c = try ProtocolClient(port: port)
        _ = try c.call("verification.start", ["phone": phone, "purpose": "register"])
        let code = try sink.code(after: 0)
        let wrong = code == "000000" ? "000001" : "000000"
        #expect(errorCode(try Self.register(c, phone, code: wrong)) == "invalid_code")
        #expect(errorCode(try Self.register(c, phone, code: wrong)) == "invalid_code")
        #expect(errorCode(try Self.register(c, phone, code: code)) == "invalid_code")
        // A new code starts again.
        _ = try c.call("verification.start", ["phone": phone, "purpose": "register"])
        #expect(ok(try Self.register(c, phone, code: try sink.code(after: 1))) != nil)
    }

    @Test func codesSentToANumberAreLimited() throws {
        let sink = try SMSSink()
        defer { sink.close() }
        let (server, port, database) = try Self.start(sink) {
            $0.sendsBurstPerPhone = 2
            $0.sendsIntervalPerPhone = 600
        }
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let c = try ProtocolClient(port: port)
        for _ in 0..<2 {
            #expect(ok(try c.call("verification.start", ["phone": phone, "purpose": "register"])) != nil)
        }
        let refused = try c.call("verification.start", ["phone": phone, "purpose": "register"])
        #expect(errorCode(refused) == "rate_limited")
        let retry = (refused["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0
        #expect(retry > 500_000 && retry <= 600_000)
        // Another number from the same address still gets its code (the address's budget is larger).
        #expect(ok(try c.call("verification.start", ["phone": freshPhone(), "purpose": "register"])) != nil)
        #expect(try sink.waitFor(3).count == 3)
    }

    @Test func codesSentFromAnAddressAreLimited() throws {
        let sink = try SMSSink()
        defer { sink.close() }
        let (server, port, database) = try Self.start(sink) {
            $0.sendsBurstPerAddress = 1
            $0.sendsIntervalPerAddress = 600
        }
        defer { stop(server); database.close() }
        let c = try ProtocolClient(port: port)
        #expect(ok(try c.call("verification.start", ["phone": freshPhone(), "purpose": "register"])) != nil)
        #expect(
            errorCode(try c.call("verification.start", ["phone": freshPhone(), "purpose": "reset"])) == "rate_limited")
    }

    @Test func anExpiredCodeIsRefused() throws {
        let sink = try SMSSink()
        defer { sink.close() }
        let (server, port, database) = try Self.start(sink) { $0.codeTTL = 0 }
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let c = try ProtocolClient(port: port)
        _ = try c.call("verification.start", ["phone": phone, "purpose": "register"])
        #expect(errorCode(try Self.register(c, phone, code: try sink.code(after: 0))) == "invalid_code")
    }

    @Test func resetSetsThePasswordAndRevokesTheOtherSessions() throws {
        let sink = try SMSSink()
        defer { sink.close() }
        let (server, port, database) = try Self.start(sink)
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let laptop = try ProtocolClient(port: port)
        _ = try laptop.call("verification.start", ["phone": phone, "purpose": "register"])
        _ = try #require(ok(try Self.register(laptop, phone, code: try sink.code(after: 0))))
        let phoneDevice = try ProtocolClient(port: port)
        _ = try phoneDevice.call("verification.start", ["phone": phone, "purpose": "reset"])
        let code = try sink.code(after: 1)
        let reset = try #require(
            ok(
                try phoneDevice.call(
                    "password.reset", ["phone": phone, "code": code, "password": "fresh harbour 58", "device": "phone"])
            ))
        #expect(reset["session_token"] is String)
        // Authenticated: an authenticated-only op works on that connection.
        #expect(ok(try phoneDevice.call("sessions.list")) != nil)
        _ = try laptop.event("session.revoked")
        #expect(try laptop.socket.readCloseCode() == 4001)
        let other = try ProtocolClient(port: port)
        #expect(
            errorCode(try other.call("login", ["phone": phone, "password": "ample meadow 31", "device": "d"]))
                == "invalid_credentials")
        #expect(ok(try other.call("login", ["phone": phone, "password": "fresh harbour 58", "device": "d"])) != nil)
        // The code is used up.
        let again = try ProtocolClient(port: port)
        #expect(
            errorCode(
                try again.call(
                    "password.reset", ["phone": phone, "code": code, "password": "fresh harbour 59", "device": "d"]))
                == "invalid_code")
    }

    @Test func aGatewayFailureAnswersUnavailable() throws {
        let sink = try SMSSink()
        defer { sink.close() }
        sink.status = 503
        let (server, port, database) = try Self.start(sink)
        defer { stop(server); database.close() }
        let c = try ProtocolClient(port: port)
        #expect(
            errorCode(try c.call("verification.start", ["phone": freshPhone(), "purpose": "register"])) == "unavailable"
        )
        #expect(sink.received.count == 1)
        let metrics = String(decoding: try http(port, "GET", "/metrics").body, as: UTF8.self)
        #expect(metrics.split(separator: "\n").contains("switchboard_sms_gateway_failures_total 1"))
    }

    /// The default of `ServerConfiguration` (and of `serve` with `--database-url`): no code, as before.
    @Test func withVerificationOffRegisterNeedsNoCode() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let c = try ProtocolClient(port: port)
        #expect(
            errorCode(try c.call("verification.start", ["phone": freshPhone(), "purpose": "register"])) == "unavailable"
        )
        #expect(ok(try Self.register(c, freshPhone(), code: nil)) != nil)
    }

    /// The Swift client library's typed calls: a code, `register` with it, then a reset that keeps the session.
    @Test func theSwiftClientVerifiesRegistersAndResets() async throws {
        let sink = try SMSSink()
        defer { sink.close() }
        let (server, port, database) = try Self.start(sink)
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let client = try makeClient(port: port)
        try await client.connect()
        try await client.startVerification(phone: phone, purpose: .register)
        let registered = try await client.register(
            phone: phone, password: "ample meadow 31", displayName: "Ann", device: "d", code: try sink.code(after: 0))
        await client.close()
        let other = try makeClient(port: port)
        try await other.connect()
        try await other.startVerification(phone: phone, purpose: .reset)
        let reset = try await other.resetPassword(
            phone: phone, code: try sink.code(after: 1), newPassword: "fresh harbour 58", device: "d2")
        #expect(reset.userId == registered.userId && reset.sessionId != registered.sessionId)
        #expect(try await other.profile().displayName == "Ann")
        await other.close()
    }

    /// `switchboard serve` on its embedded PostgreSQL (no `--database-url`, as `scripts/run.sh` runs it): codes are
    /// required and written to the log, the phone masked but for its last two digits (the README's flow).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func theEmbeddedDefaultRequiresACodeAndLogsIt() throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-verify-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dataDir) }
        let logPath = dataDir + ".log"
        defer { try? FileManager.default.removeItem(atPath: logPath) }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        let port = freePort()
        let server = try launchServer(dataDir: dataDir, port: port, embeddedDefaults: true, log: log)
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        let phone = freshPhone()
        let c = try ProtocolClient(port: port)
        #expect(errorCode(try Self.register(c, phone, code: nil)) == "invalid_code")
        #expect(ok(try c.call("verification.start", ["phone": phone, "purpose": "register"])) != nil)
        // The line is written before the reply: it is in the file now.
        let text = try String(contentsOfFile: logPath, encoding: .utf8)
        let line = try #require(text.split(separator: "\n").first { $0.contains("verification code") })
        #expect(line.contains("phone=+*********\(phone.suffix(2))") && !line.contains(phone))
        let code = try #require(line.split(separator: " ").first { $0.hasPrefix("code=") }?.dropFirst(5))
        #expect(ok(try Self.register(c, phone, code: String(code))) != nil)
    }

    /// A gateway or mode the server cannot run with stops `serve` before it starts.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func badVerificationOptionsAreRefused() throws {
        let http = try runProcess(serverBinary, ["serve", "--sms-gateway", "http"], timeout: 30)
        #expect(http.status != 0 && http.output.contains("--sms-gateway-url"))
        let mode = try runProcess(serverBinary, ["serve", "--phone-verification", "maybe"], timeout: 30)
        #expect(mode.status != 0 && mode.output.contains("off, required or auto"))
        let none = try runProcess(
            serverBinary, ["serve", "--phone-verification", "required", "--sms-gateway", "off"], timeout: 30)
        #expect(none.status != 0 && none.output.contains("needs an SMS gateway"))
    }
}
