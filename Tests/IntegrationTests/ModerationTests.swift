//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import SwitchboardClient
import SwitchboardProtocol
import SwitchboardServer
import SwitchboardStore
import Testing

/// Makes `user` an administrator the way the operator does (`switchboard admin grant`'s code path).
private func grant(_ user: TestUser, _ admin: Bool = true) throws {
    var configuration = ServerConfiguration()
    configuration.databaseURL = TestDatabase.shared.url
    var logger = Logger(label: "test")
    logger.logLevel = .warning
    _ = try Administrators.run(
        admin ? .grant(phone: user.phone) : .revoke(phone: user.phone), configuration: configuration, logger: logger)
}

private func list(_ value: Any?) -> [[String: Any]] { value as? [[String: Any]] ?? [] }

@Suite("Reports and moderation over the real protocol", .serialized)
struct ModerationTests {
    @Test func reportRemoveSuspendReinstateAndTheAuditLog() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let mod = try makeUser(port, "mod")
        try befriend(ann, bob)
        try grant(mod)
        // The role is told to the client: authenticate's profile and profile.get of oneself.
        let modAgain = try ProtocolClient(port: port)
        let auth = try #require(ok(try modAgain.call("authenticate", ["token": mod.token])))
        #expect((auth["profile"] as? [String: Any])?["role"] as? String == "admin")
        #expect((ok(try ann.client.call("profile.get"))?["profile"] as? [String: Any])?["role"] as? String == "user")
        #expect((ok(try modAgain.call("profile.get"))?["profile"] as? [String: Any])?["role"] as? String == "admin")
        // Bob's friend's profile carries no role.
        #expect(
            (ok(try bob.client.call("profile.get", ["user_id": ann.id]))?["profile"] as? [String: Any])?["role"] == nil)

        let ack = try #require(
            ok(try bob.client.call("messages.send", ["user_id": ann.id, "text": "buy cheap pills"])))
        let conversation = try #require(ack["conversation_id"] as? Int)
        let messageId = try #require(ack["message_id"] as? Int)
        _ = try ann.client.messages(count: 1)

        // Ann reports the message and Bob; the same report again is the same report.
        let report = try #require(
            ok(
                try ann.client.call(
                    "report.create",
                    ["target_kind": "message", "target_id": messageId, "reason": "spam", "text": "ads"]))?[
                    "report_id"] as? Int)
        let same = ok(
            try ann.client.call("report.create", ["target_kind": "message", "target_id": messageId, "reason": "spam"]))
        #expect(same?["report_id"] as? Int == report)
        let userReport = try #require(
            ok(
                try ann.client.call(
                    "report.create", ["target_kind": "user", "target_id": bob.id, "reason": "harassment"]))?[
                    "report_id"] as? Int)

        // The administrator sees both, newest first, with the reported content.
        let page = try #require(ok(try modAgain.call("admin.reports", ["limit": 1])))
        #expect(list(page["reports"]).map { $0["report_id"] as? Int } == [userReport])
        let next = try #require(page["next_before"] as? Int)
        let older = list(ok(try modAgain.call("admin.reports", ["before": next]))?["reports"])
        let first = try #require(older.first)
        #expect(first["report_id"] as? Int == report)
        #expect(first["content"] as? String == "buy cheap pills")
        #expect(first["text"] as? String == "ads")
        #expect(first["message_state"] as? String == "visible")
        #expect((first["reporter"] as? [String: Any])?["user_id"] as? Int == ann.id)
        #expect((first["target_user"] as? [String: Any])?["user_id"] as? Int == bob.id)
        #expect(first["conversation_id"] as? Int == conversation)

        // Removal: the tombstone reaches both members live, the history shows it, the report is resolved.
        let removed = try #require(
            ok(try modAgain.call("admin.remove", ["message_id": messageId, "reason": "spam", "report_id": report])))
        let tombstone = try #require(removed["message"] as? [String: Any])
        #expect((tombstone["system"] as? [String: Any])?["event"] as? String == "message_removed")
        #expect((tombstone["system"] as? [String: Any])?["message_id"] as? Int == messageId)
        #expect((tombstone["system"] as? [String: Any])?["actor_id"] == nil)
        for client in [ann.client, bob.client] {
            let live = try #require(try client.messages(count: 1).first)
            #expect((live["system"] as? [String: Any])?["event"] as? String == "message_removed")
            #expect((live["system"] as? [String: Any])?["message_id"] as? Int == messageId)
        }
        let history = list(ok(try ann.client.call("messages.history", ["conversation_id": conversation]))?["messages"])
        #expect(history.first { $0["id"] as? Int == messageId }?["deleted"] as? Bool == true)
        #expect(history.first { $0["id"] as? Int == messageId }?["text"] == nil)
        #expect(history.contains { ($0["system"] as? [String: Any])?["event"] as? String == "message_removed" })
        let closed = list(ok(try modAgain.call("admin.reports", ["status": "closed"]))?["reports"])
        #expect(closed.first { $0["report_id"] as? Int == report }?["status"] as? String == "resolved")
        #expect(closed.first { $0["report_id"] as? Int == report }?["message_state"] as? String == "removed")

        // Suspension: Bob's open connection gets the event and closes with 4004; login and authenticate refused.
        let suspended = try #require(
            ok(try modAgain.call("admin.suspend", ["user_id": bob.id, "reason": "spam", "report_id": userReport])))
        #expect(suspended["suspended"] as? Bool == true)
        #expect(try bob.client.event("account.suspended")["user_id"] as? Int == bob.id)
        #expect(try bob.client.socket.readCloseCode() == 4004)
        let login = try ProtocolClient(port: port)
        #expect(
            errorCode(try login.call("login", ["phone": bob.phone, "password": bob.password, "device": "again"]))
                == "account_suspended")
        #expect(errorCode(try login.call("authenticate", ["token": bob.token])) == "account_suspended")
        // A wrong password is still only invalid_credentials (suspension says nothing to who lacks the password).
        #expect(
            errorCode(try login.call("login", ["phone": bob.phone, "password": "wrong wrong 1", "device": "x"]))
                == "invalid_credentials")

        // Reinstated: the old token and a login work again.
        #expect(
            ok(try modAgain.call("admin.reinstate", ["user_id": bob.id, "reason": "appeal"]))?["suspended"] as? Bool
                == false)
        #expect(ok(try login.call("authenticate", ["token": bob.token])) != nil)

        // Dismiss: a new report closed without action.
        let third = try #require(
            ok(try ann.client.call("report.create", ["target_kind": "user", "target_id": bob.id, "reason": "other"]))?[
                "report_id"] as? Int)
        let dismissed = try #require(
            ok(try modAgain.call("admin.resolve", ["report_id": third, "status": "dismissed", "note": "fine"])))
        #expect((dismissed["report"] as? [String: Any])?["status"] as? String == "dismissed")

        // The audit log: every action, newest first, who, what, target, why.
        let entries = list(ok(try modAgain.call("admin.audit"))?["entries"])
        let actions = entries.map {
            "\($0["action"] as? String ?? "?") \($0["target_kind"] as? String ?? "?") \($0["target_id"] as? Int ?? 0)"
        }
        #expect(
            Array(actions.prefix(5)) == [
                "dismiss report \(third)", "reinstate user \(bob.id)", "suspend user \(bob.id)",
                "remove message \(messageId)",
                "grant user \(mod.id)",
            ])
        #expect(entries[1]["reason"] as? String == "appeal")
        #expect(entries[1]["actor_id"] as? Int == mod.id)
        #expect(entries[4]["actor"] as? String == "cli")
        #expect(entries[4]["actor_id"] == nil)
        #expect(entries[0]["created_at"] is String)
    }

    @Test func nonAdministratorsAreRefusedEveryAdminOp() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let messageId = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "hello"]))?["message_id"] as? Int)
        let report = try #require(
            ok(
                try bob.client.call(
                    "report.create", ["target_kind": "message", "target_id": messageId, "reason": "spam"]))?[
                    "report_id"] as? Int)
        let calls: [(String, [String: Any])] = [
            ("admin.reports", [:]), ("admin.reports", ["status": "closed"]), ("admin.audit", [:]),
            ("admin.remove", ["message_id": messageId]), ("admin.suspend", ["user_id": ann.id]),
            ("admin.reinstate", ["user_id": ann.id]),
            ("admin.resolve", ["report_id": report, "status": "dismissed"]),
        ]
        for (op, params) in calls {
            let reply = try bob.client.call(op, params)
            #expect(errorCode(reply) == "forbidden", "\(op)")
            #expect(reply["ok"] == nil, "\(op)")
        }
        // Nothing changed: Ann is connected and the message is there.
        #expect(ok(try ann.client.call("ping")) != nil)
        let history = list(
            ok(
                try ann.client.call(
                    "messages.history",
                    [
                        "conversation_id": try #require(
                            ok(try ann.client.call("conversations.direct", ["user_id": bob.id]))?["conversation"]
                                as? [String: Any])["conversation_id"] as Any
                    ]))?["messages"])
        #expect(history.first { $0["id"] as? Int == messageId }?["text"] as? String == "hello")
        // A revoked administrator is refused too.
        try grant(bob)
        #expect(ok(try bob.client.call("admin.audit")) != nil)
        try grant(bob, false)
        #expect(errorCode(try bob.client.call("admin.audit")) == "forbidden")
    }

    @Test func reportsOnlyOfWhatTheReporterSeesAndRateLimited() throws {
        let (server, port, database) = try startProtocolServer { $0.messaging.reportsPerHour = 3 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let zed = try makeUser(port, "zed")
        try befriend(ann, bob)
        let messageId = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "private"]))?["message_id"] as? Int)
        // A stranger: the message and the user are not found (as a missing id); a post cannot be reported yet.
        let missing = try zed.client.call(
            "report.create", ["target_kind": "message", "target_id": 9_000_000_000, "reason": "spam"])
        let hidden = try zed.client.call(
            "report.create", ["target_kind": "message", "target_id": messageId, "reason": "spam"])
        #expect(errorCode(missing) == "not_found" && errorCode(hidden) == "not_found")
        #expect(
            (missing["error"] as? [String: Any])?["message"] as? String == (hidden["error"] as? [String: Any])?[
                "message"] as? String)
        #expect(
            errorCode(
                try zed.client.call("report.create", ["target_kind": "user", "target_id": ann.id, "reason": "spam"]))
                == "not_found")
        #expect(
            errorCode(
                try ann.client.call(
                    "report.create", ["target_kind": "user", "target_id": 9_000_000_000, "reason": "spam"]))
                == "not_found")
        #expect(
            errorCode(try ann.client.call("report.create", ["target_kind": "post", "target_id": 1, "reason": "spam"]))
                == "bad_request")
        #expect(
            errorCode(
                try ann.client.call("report.create", ["target_kind": "user", "target_id": bob.id, "reason": "meh"]))
                == "bad_request")
        #expect(
            errorCode(
                try ann.client.call("report.create", ["target_kind": "user", "target_id": ann.id, "reason": "spam"]))
                == "not_found")
        // The reply tells nothing but the report's id.
        let made = try #require(
            ok(
                try bob.client.call(
                    "report.create", ["target_kind": "message", "target_id": messageId, "reason": "spam"])))
        #expect(Array(made.keys) == ["report_id"])
        // Rate limit: 3 per hour per user (every checked report counts; malformed ones are refused before).
        _ = try bob.client.call("report.create", ["target_kind": "user", "target_id": ann.id, "reason": "spam"])
        _ = try bob.client.call("report.create", ["target_kind": "user", "target_id": ann.id, "reason": "other"])
        let limited = try bob.client.call(
            "report.create", ["target_kind": "user", "target_id": ann.id, "reason": "hate"])
        #expect(errorCode(limited) == "rate_limited")
        #expect((limited["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0 > 0)
    }

    @Test func theSwiftClientStopsForGoodWhenItsAccountIsSuspended() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let client = try makeClient(port: port)
        let events = EventLog(client)
        let user = try await registerUser(client, "Sam")
        let mod = try makeUser(port, "mod")
        try grant(mod)
        #expect(ok(try mod.client.call("admin.suspend", ["user_id": Int(user.id)])) != nil)
        #expect(await events.wait { _ in events.states.last == .closed(.accountSuspended) })
        await #expect(throws: SwitchboardClientError.closed(.accountSuspended)) { try await client.ping() }
        #expect(ok(try mod.client.call("admin.reinstate", ["user_id": Int(user.id)])) != nil)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func theCommandLineGrantsRevokesAndListsOnAnExternalDatabase() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let url = TestDatabase.shared.url
        let granted = try runProcess(serverBinary, ["admin", "grant", ann.phone, "--database-url", url])
        #expect(granted.status == 0, "\(granted.output)")
        #expect(granted.output.contains("user \(ann.id) is an administrator"))
        let listed = try runProcess(serverBinary, ["admin", "list", "--database-url", url])
        #expect(listed.status == 0 && listed.output.contains("\(ann.id)\t\(ann.phone)\tann"), "\(listed.output)")
        #expect(ok(try ann.client.call("admin.audit")) != nil)
        let revoked = try runProcess(serverBinary, ["admin", "revoke", ann.phone, "--database-url", url])
        #expect(revoked.status == 0 && revoked.output.contains("is not an administrator"), "\(revoked.output)")
        #expect(!(try runProcess(serverBinary, ["admin", "list", "--database-url", url])).output.contains(ann.phone))
        #expect(errorCode(try ann.client.call("admin.audit")) == "forbidden")
        let unknown = try runProcess(serverBinary, ["admin", "grant", "+15559990000", "--database-url", url])
        #expect(unknown.status == 1 && unknown.output.contains("no account has this phone number"))
        let invalid = try runProcess(serverBinary, ["admin", "grant", "not a phone", "--database-url", url])
        #expect(invalid.status == 1)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: serverBinary)))
    func theCommandLineWorksOnTheEmbeddedDatabaseStoppedOrRunning() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-admin-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // No server: the command starts the embedded PostgreSQL for itself and stops it.
        let empty = try runProcess(serverBinary, ["admin", "list", "--data-dir", dir], timeout: 120)
        #expect(empty.status == 0 && empty.output.contains("no administrators"), "\(empty.output)")
        let pg = EmbeddedPostgres(dataDirectory: dir, logger: Logger(label: "test"))
        #expect(!pg.isAcceptingConnections())
        // A running server: its PostgreSQL is used as it is, and keeps running.
        let (server, port, database) = try startProtocolServer {
            $0.databaseURL = nil; $0.dataDirectory = dir
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let granted = try runProcess(serverBinary, ["admin", "grant", ann.phone, "--data-dir", dir], timeout: 120)
        #expect(granted.status == 0, "\(granted.output)")
        #expect(pg.isAcceptingConnections())
        #expect(ok(try ann.client.call("admin.audit")) != nil)
        #expect(ok(try ann.client.call("ping")) != nil)
    }
}
