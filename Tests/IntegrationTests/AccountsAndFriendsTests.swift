//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import SwitchboardServer
import SwitchboardStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One database for the whole test process: the test command's PostgreSQL
/// (`SWITCHBOARD_TEST_DATABASE_URL`), else an embedded one in a temporary folder.
final class TestDatabase: @unchecked Sendable {
    // @unchecked Sendable: initialised once, immutable after.
    static let shared = TestDatabase()
    let url: String
    let embedded: EmbeddedPostgres?

    private init() {
        if let url = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_DATABASE_URL"], !url.isEmpty {
            self.url = url
            embedded = nil
        } else {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-it-\(getpid())").path
            let pg = EmbeddedPostgres(dataDirectory: dir, logger: Logger(label: "test-pg"))
            url = (try? pg.start()) ?? ""
            embedded = pg
            atexit {
                TestDatabase.shared.embedded?.stop()
            }
        }
    }
}

/// A server with protocol v1 on a real database.
func startProtocolServer(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> (
    HubServer, Int, DatabaseRuntime
) {
    var configuration = ServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.loopCount = 2
    configuration.databaseURL = TestDatabase.shared.url
    configuration.databasePoolSize = 2
    configuration.passwordHashers = 2
    configuration.shutdownGracePeriod = 2
    // The suites register hundreds of users from 127.0.0.1; the limits' own test lowers them again.
    configuration.discoveryLimits = .unlimited
    adjust(&configuration)
    var logger = Logger(label: "test")
    logger.logLevel = .warning
    let database = try DatabaseRuntime.open(configuration: configuration, logger: logger)
    let server = try HubServer(configuration: configuration, logger: logger, database: database.pool)
    return (server, try server.start(), database)
}

/// A blocking protocol client over a raw WebSocket.
final class ProtocolClient {
    let socket: TestSocket
    var nextID = 1
    var events: [[String: Any]] = []

    init(port: Int, extraHeaders: String = "") throws {
        socket = try TestSocket(port: port, timeout: 10)
        try socket.send(
            upgradeRequest(path: "/ws", extraHeaders: "Sec-WebSocket-Protocol: switchboard.v1\r\n" + extraHeaders))
        let head = try socket.readHead()
        guard head.hasPrefix("HTTP/1.1 101") else { throw TestSocketError.eof }
    }

    func sendRaw(_ text: String) throws { try socket.send(clientFrame(opcode: 1, payload: Array(text.utf8))) }

    /// Sends a request and waits for its reply; events arriving meanwhile are kept.
    func call(_ op: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        let id = nextID
        nextID += 1
        var body = params
        body["id"] = id
        body["op"] = op
        try sendRaw(String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        while true {
            let message = try next()
            if let re = message["re"] as? Int, re == id { return message }
            events.append(message)
        }
    }

    func next() throws -> [String: Any] {
        while true {
            let frame = try socket.readFrame()
            if frame.opcode == 8 { throw TestSocketError.eof }
            if frame.opcode == 1,
                let object = try JSONSerialization.jsonObject(with: Data(frame.payload)) as? [String: Any]
            {
                return object
            }
        }
    }

    /// Waits for an event named `name` (already received or arriving).
    func event(_ name: String) throws -> [String: Any] {
        if let i = events.firstIndex(where: { $0["ev"] as? String == name }) { return events.remove(at: i) }
        while true {
            let message = try next()
            if message["ev"] as? String == name { return message }
            events.append(message)
        }
    }
}

func ok(_ reply: [String: Any]) -> [String: Any]? { reply["ok"] as? [String: Any] }
func errorCode(_ reply: [String: Any]) -> String? { (reply["error"] as? [String: Any])?["code"] as? String }

/// A unique phone number per test run.
func freshPhone() -> String { "+1555\(String(format: "%07d", Int.random(in: 0..<10_000_000)))" }

@Suite("Accounts and friends over the real protocol", .serialized)
struct AccountsAndFriendsTests {
    @Test func registerLoginAuthenticateLogout() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let a = try ProtocolClient(port: port)
        let registered = try #require(
            ok(
                try a.call(
                    "register",
                    ["phone": phone, "password": "correct horse 42", "display_name": "Ann", "device": "phone"])))
        let token = try #require(registered["session_token"] as? String)
        #expect(token.count == 43)
        #expect(
            errorCode(try a.call("register", ["phone": phone, "password": "x", "display_name": "A", "device": "d"]))
                == "already_authenticated")
        #expect(ok(try a.call("ping")) != nil)

        let dup = try ProtocolClient(port: port)
        #expect(
            errorCode(
                try dup.call(
                    "register",
                    ["phone": phone, "password": "another good one 7", "display_name": "Ann2", "device": "d"]))
                == "phone_taken")
        #expect(
            errorCode(try dup.call("login", ["phone": phone, "password": "wrong password 1", "device": "d"]))
                == "invalid_credentials")
        let logged = try #require(
            ok(try dup.call("login", ["phone": phone, "password": "correct horse 42", "device": "laptop"])))
        #expect(logged["user_id"] as? Int == registered["user_id"] as? Int)

        let third = try ProtocolClient(port: port)
        let auth = try #require(ok(try third.call("authenticate", ["token": token])))
        #expect((auth["profile"] as? [String: Any])?["display_name"] as? String == "Ann")
        let sessions = try #require(ok(try third.call("sessions.list"))?["sessions"] as? [[String: Any]])
        #expect(sessions.count == 2)

        // Logout revokes the token: the connection closes with 1000 and the token is dead.
        #expect(ok(try a.call("logout")) != nil)
        #expect(try a.socket.readCloseCode() == 1000)
        let again = try ProtocolClient(port: port)
        #expect(errorCode(try again.call("authenticate", ["token": token])) == "invalid_token")
    }

    @Test func revocationFromAnotherDevice() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let phoneDevice = try ProtocolClient(port: port)
        _ = try #require(
            ok(
                try phoneDevice.call(
                    "register", ["phone": phone, "password": "quiet river 9", "display_name": "Bob", "device": "phone"])
            ))
        let laptop = try ProtocolClient(port: port)
        let login = try #require(
            ok(try laptop.call("login", ["phone": phone, "password": "quiet river 9", "device": "laptop"])))
        let laptopSession = try #require(login["session_id"] as? Int)
        #expect(ok(try phoneDevice.call("sessions.revoke", ["session_id": laptopSession])) != nil)
        _ = try laptop.event("session.revoked")
        #expect(try laptop.socket.readCloseCode() == 4001)
        #expect(errorCode(try phoneDevice.call("sessions.revoke", ["session_id": laptopSession])) == "not_found")
    }

    @Test func validationErrors() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let c = try ProtocolClient(port: port)
        #expect(
            errorCode(
                try c.call(
                    "register", ["phone": "12ab", "password": "fine password 1", "display_name": "X", "device": "d"]))
                == "invalid_phone")
        let weak = try c.call(
            "register", ["phone": freshPhone(), "password": "123456", "display_name": "X", "device": "d"])
        #expect(errorCode(weak) == "weak_password")
        #expect((weak["error"] as? [String: Any])?["reason"] as? String != nil)
        #expect(
            errorCode(
                try c.call("register", ["phone": freshPhone(), "password": "abc", "display_name": "X", "device": "d"]))
                == "weak_password")
        #expect(errorCode(try c.call("register", ["phone": freshPhone(), "device": "d"])) == "bad_request")
        #expect(errorCode(try c.call("no.such.op")) == "unknown_op")
        try c.sendRaw("{not json")
        #expect(errorCode(try c.next()) == "bad_request")
    }

    @Test func unauthenticatedConnectionCanDoNothingElse() throws {
        let (server, port, database) = try startProtocolServer { $0.authenticationTimeout = 1.5 }
        defer { stop(server); database.close() }
        let c = try ProtocolClient(port: port)
        for op in [
            "ping", "logout", "sessions.list", "sessions.revoke", "profile.get", "profile.update", "friends.request",
            "friends.accept", "friends.decline", "friends.cancel", "friends.remove", "friends.list", "friends.requests",
            "contacts.match",
        ] {
            #expect(
                errorCode(
                    try c.call(op, ["session_id": 1, "request_id": 1, "user_id": 1, "phones": [], "display_name": "x"]))
                    == "not_authenticated", "\(op)")
        }
        // ... and is closed with 4002 after the authentication timeout.
        #expect(try c.socket.readCloseCode() == 4002)
    }

    @Test func sqlInjectionShapedInputIsStoredVerbatim() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let c = try ProtocolClient(port: port)
        let name = "Robert'); DROP TABLE users; --"
        _ = try #require(
            ok(
                try c.call(
                    "register",
                    [
                        "phone": freshPhone(), "password": "little bobby 77", "display_name": name,
                        "device": "x' OR '1'='1",
                    ])))
        let profile = try #require(ok(try c.call("profile.get"))?["profile"] as? [String: Any])
        #expect(profile["display_name"] as? String == name)
        let sessions = try #require(ok(try c.call("sessions.list"))?["sessions"] as? [[String: Any]])
        #expect(sessions.first?["device"] as? String == "x' OR '1'='1")
    }

    @Test func loginRateLimitPerPhone() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let phone = freshPhone()
        let r = try ProtocolClient(port: port)
        _ = try #require(
            ok(
                try r.call(
                    "register", ["phone": phone, "password": "steady state 3", "display_name": "Rate", "device": "d"])))
        var codes: [String] = []
        for _ in 0..<7 {
            let c = try ProtocolClient(port: port)
            codes.append(
                errorCode(try c.call("login", ["phone": phone, "password": "wrong guess 123", "device": "d"])) ?? "ok")
        }
        #expect(codes.prefix(5).allSatisfy { $0 == "invalid_credentials" })
        #expect(codes.last == "rate_limited")
        let c = try ProtocolClient(port: port)
        let limited = try c.call("login", ["phone": phone, "password": "steady state 3", "device": "d"])
        #expect(errorCode(limited) == "rate_limited")
        #expect(((limited["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
    }

    @Test func friendsFlowsWithLiveEventsOnTwoDevicesEach() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let annPhone = freshPhone()
        let bobPhone = freshPhone()
        let ann1 = try ProtocolClient(port: port)
        let annId = try #require(
            ok(
                try ann1.call(
                    "register", ["phone": annPhone, "password": "ann secret 11", "display_name": "ann", "device": "a1"])
            )?["user_id"] as? Int)
        let ann2 = try ProtocolClient(port: port)
        _ = try #require(ok(try ann2.call("login", ["phone": annPhone, "password": "ann secret 11", "device": "a2"])))
        let bob1 = try ProtocolClient(port: port)
        let bobId = try #require(
            ok(
                try bob1.call(
                    "register", ["phone": bobPhone, "password": "bob secret 22", "display_name": "Bob", "device": "b1"])
            )?["user_id"] as? Int)
        let bob2 = try ProtocolClient(port: port)
        _ = try #require(ok(try bob2.call("login", ["phone": bobPhone, "password": "bob secret 22", "device": "b2"])))

        // Request by phone: both devices of both users hear of it.
        let sent = try #require(ok(try ann1.call("friends.request", ["phone": bobPhone])))
        let requestId = try #require((sent["request"] as? [String: Any])?["request_id"] as? Int)
        for c in [ann1, ann2, bob1, bob2] { _ = try c.event("friend.request.received") }
        #expect(errorCode(try ann2.call("friends.request", ["user_id": bobId])) == "already_requested")
        #expect(errorCode(try ann1.call("friends.request", ["user_id": annId])) == "self_request")
        let pending = try #require(ok(try bob2.call("friends.requests")))
        #expect((pending["incoming"] as? [[String: Any]])?.count == 1)

        // Cancel, then request again and decline, then request again and accept.
        #expect(ok(try ann1.call("friends.cancel", ["request_id": requestId])) != nil)
        for c in [ann1, ann2, bob1, bob2] { _ = try c.event("friend.request.cancelled") }
        let second = try #require(
            (ok(try ann1.call("friends.request", ["user_id": bobId]))?["request"] as? [String: Any])?["request_id"]
                as? Int)
        for c in [ann1, ann2, bob1, bob2] { _ = try c.event("friend.request.received") }
        // Not addressed to Ann.
        #expect(errorCode(try ann1.call("friends.decline", ["request_id": second])) == "not_found")
        #expect(ok(try bob1.call("friends.decline", ["request_id": second])) != nil)
        for c in [ann1, ann2, bob1, bob2] { _ = try c.event("friend.request.declined") }
        let third = try #require(
            (ok(try ann1.call("friends.request", ["phone": bobPhone]))?["request"] as? [String: Any])?["request_id"]
                as? Int)
        for c in [ann1, ann2, bob1, bob2] { _ = try c.event("friend.request.received") }
        #expect(ok(try bob2.call("friends.accept", ["request_id": third])) != nil)
        for c in [ann1, ann2, bob1, bob2] { _ = try c.event("friend.request.accepted") }

        // A request to a friend answers with the friendship.
        let existing = try #require(ok(try bob1.call("friends.request", ["user_id": annId])))
        #expect((existing["friend"] as? [String: Any])?["user_id"] as? Int == annId)
        // Alphabetical, case-insensitive.
        let carol = try ProtocolClient(port: port)
        let carolPhone = freshPhone()
        let carolId = try #require(
            ok(
                try carol.call(
                    "register",
                    ["phone": carolPhone, "password": "carol secret 33", "display_name": "carol", "device": "c"]))?[
                    "user_id"] as? Int)
        let toCarol = try #require(
            (ok(try bob1.call("friends.request", ["user_id": carolId]))?["request"] as? [String: Any])?["request_id"]
                as? Int)
        _ = try #require(ok(try carol.call("friends.accept", ["request_id": toCarol])))
        let list = try #require(ok(try bob2.call("friends.list"))?["friends"] as? [[String: Any]])
        #expect(list.map { $0["display_name"] as? String } == ["ann", "carol"])
        // Profiles: friends see each other, strangers do not.
        #expect(ok(try ann1.call("profile.get", ["user_id": bobId])) != nil)
        #expect(errorCode(try ann1.call("profile.get", ["user_id": carolId])) == "not_found")
        // Contact matching.
        let matches = try #require(
            ok(try ann1.call("contacts.match", ["phones": [bobPhone, carolPhone, "+15550000000", "garbage"]]))?[
                "matches"] as? [[String: Any]])
        #expect(Set(matches.compactMap { $0["user_id"] as? Int }) == [bobId, carolId])
        #expect(
            errorCode(try ann1.call("contacts.match", ["phones": Array(repeating: bobPhone, count: 501)])) == "too_many"
        )
        // Profile updates reach friends live.
        _ = try #require(ok(try bob1.call("profile.update", ["display_name": "Bobby"])))
        let updated = try ann2.event("profile.updated")
        #expect((updated["profile"] as? [String: Any])?["display_name"] as? String == "Bobby")
        // Unfriend.
        #expect(ok(try ann1.call("friends.remove", ["user_id": bobId])) != nil)
        for c in [ann1, ann2, bob1, bob2] { _ = try c.event("friend.removed") }
        #expect(errorCode(try ann1.call("friends.remove", ["user_id": bobId])) == "not_friends")
    }

    @Test func pythonClientRegistersLogsInAndBefriends() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let script = repositoryRoot.appendingPathComponent("Tests/IntegrationTests/python/accounts_interop.py").path
        let result = try runProcess(
            "/usr/bin/env", ["python3", script, "ws://127.0.0.1:\(port)/ws", freshPhone(), freshPhone()])
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("ok befriended"))
        #expect(result.output.contains("ok messages"))
        #expect(result.output.contains("ok resumed"))
    }
}
