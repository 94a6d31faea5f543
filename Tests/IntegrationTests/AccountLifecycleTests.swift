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

/// One integer from a query on the test database.
private func count(_ database: DatabaseRuntime, _ sql: String, _ params: [PostgresData?] = []) throws -> Int {
    try database.pool.connectionForTests { db in Int(try db.execute(cached: sql, params).first?.string(0) ?? "-1") ?? -1
    }
}

/// Waits until `sql` (one integer) says `expected`.
private func waitFor(
    _ database: DatabaseRuntime, _ sql: String, _ params: [PostgresData?] = [], equals expected: Int,
    timeout: Double = 30
) -> Bool {
    waitUntil(timeout: timeout) { (try? count(database, sql, params)) == expected }
}

private func uploadClip(_ port: Int, _ user: TestUser, seconds: Double) throws -> Int {
    let uploaded = try http(
        port, "POST", "/voice", token: user.token, headers: ["Content-Type": "audio/wav"],
        body: toneWAV(seconds: seconds))
    return try #require(json(uploaded.body)["voice_id"] as? Int)
}

/// The history of a conversation as `user` sees it, oldest first.
private func history(_ user: TestUser, _ conversation: Int) throws -> [[String: Any]] {
    let messages = try #require(
        ok(try user.client.call("messages.history", ["conversation_id": conversation, "limit": 100]))?["messages"]
            as? [[String: Any]])
    return messages.sorted { ($0["seq"] as? Int ?? 0) < ($1["seq"] as? Int ?? 0) }
}

/// Extracts a .tar.gz into a new temporary folder.
private func extract(_ archive: [UInt8]) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-export-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("export.tar.gz")
    try Data(archive).write(to: file)
    let result = try runProcess("/bin/tar", ["-xzf", file.path, "-C", folder.path])
    #expect(result.status == 0, "tar: \(result.output)")
    return folder
}

private func jsonFile(_ url: URL) throws -> Any { try JSONSerialization.jsonObject(with: try Data(contentsOf: url)) }

/// Creates a fresh database in the test PostgreSQL and returns its connection string.
private func ownDatabase(_ name: String) throws -> String {
    let base = TestDatabase.shared.url
    var logger = Logger(label: "test")
    logger.logLevel = .warning
    var configuration = ServerConfiguration()
    configuration.databaseURL = base
    configuration.databasePoolSize = 1
    let admin = try DatabaseRuntime.open(configuration: configuration, logger: logger)
    defer { admin.close() }
    try runSQL(admin, "CREATE DATABASE \(name)")
    if let schemeEnd = base.range(of: "://") {
        // postgres://user@host:port/db?options
        let rest = base[schemeEnd.upperBound...]
        let query = rest.firstIndex(of: "?").map { String(rest[$0...]) } ?? ""
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        return base[..<schemeEnd.upperBound] + authority + "/" + name + query
    }
    let parts = base.split(separator: " ").filter { !$0.hasPrefix("dbname=") }
    return (parts + ["dbname=\(name)"]).joined(separator: " ")
}

@Suite("Account deletion and data export", .serialized)
struct AccountLifecycleTests {
    @Test func deletionRemovesOrTombstonesEveryKindOfDataAndKeepsOthersHistoriesGapless() throws {
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("sb-exports-\(UUID().uuidString)")
            .path
        // A database of its own: the other suites' servers share the test database and would work this job with
        // their own export folders (a cluster shares one).
        let own = try ownDatabase("acct_del_\(getpid())_\(Int.random(in: 0..<1_000_000))")
        let (server, port, database) = try startProtocolServer {
            $0.account.exportDirectory = exports
            $0.databaseURL = own
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        let dan = try makeUser(port, "dan")
        try befriend(ann, bob)
        try befriend(ann, cat)
        try befriend(bob, cat)
        _ = try #require(ok(try ann.client.call("friends.request", ["user_id": dan.id])))
        let ann2 = try secondDevice(port, ann, "ann-2")

        // A direct conversation: ann, bob, ann (text) and a voice message of ann's.
        let first = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "client_id": "a1", "text": "secret one"])))
        let direct = try #require(first["conversation_id"] as? Int)
        _ = try #require(
            ok(
                try bob.client.call(
                    "messages.send", ["conversation_id": direct, "client_id": "b1", "text": "bob's reply"])))
        let clip = try uploadClip(port, ann, seconds: 1)
        _ = try #require(
            ok(try ann.client.call("messages.send", ["conversation_id": direct, "client_id": "a2", "voice_id": clip])))
        _ = try #require(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": direct, "client_id": "a3", "text": "secret two"])))
        #expect(try http(port, "GET", "/voice/\(clip)", token: bob.token).status == 200)
        // A group of three.
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["name": "trio", "member_ids": [bob.id, cat.id]]))?["conversation"]
                as? [String: Any])?[
                    "conversation_id"] as? Int)
        _ = try #require(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": group, "client_id": "g1", "text": "group secret"])))
        let catsMessage = try #require(
            ok(try cat.client.call("messages.send", ["conversation_id": group, "client_id": "c1", "text": "cat here"])))
        // Reactions both ways, a call record, an export.
        let bobsMessageId = try #require(
            history(bob, direct).first { $0["sender_id"] as? Int == bob.id }?["id"] as? Int)
        _ = try #require(ok(try ann.client.call("reactions.set", ["message_id": bobsMessageId, "emoji": "👍"])))
        _ = try #require(
            ok(try bob.client.call("reactions.set", ["message_id": first["message_id"] as? Int ?? 0, "emoji": "❤️"])))
        try runSQL(
            database,
            "INSERT INTO calls (id, caller_id, callee_id, media, outcome, reason, started_at, ended_at)"
                + " VALUES ('acct-\(ann.id)', \(ann.id), \(bob.id), 'voice', 'completed', 'hangup', now(), now())"
        )
        let export = try #require(
            (ok(try ann.client.call("account.export"))?["export"] as? [String: Any])?["export_id"] as? Int)
        _ = try ann.client.event("account.export_ready")
        let seqsBefore = try history(bob, direct).map { $0["seq"] as? Int ?? 0 }

        // Strangers and wrong passwords change nothing.
        let anonymous = try ProtocolClient(port: port)
        #expect(errorCode(try anonymous.call("account.delete", ["password": ann.password])) == "not_authenticated")
        #expect(errorCode(try anonymous.call("account.export")) == "not_authenticated")
        #expect(
            errorCode(try ann.client.call("account.delete", ["password": "not the password"])) == "invalid_credentials")
        #expect(try count(database, "SELECT count(*) FROM account_deletions WHERE user_id = $1", [.int(ann.id)]) == 0)
        #expect(try http(port, "GET", "/export/\(export)", token: bob.token).status == 404)

        // The deletion: the answer, then account.deleted and 4005 on every connection of the account.
        #expect(ok(try ann.client.call("account.delete", ["password": ann.password])) != nil)
        #expect(try ann.client.event("account.deleted")["user_id"] as? Int == ann.id)
        #expect(try ann.client.socket.readCloseCode() == 4005)
        #expect(try ann2.event("account.deleted")["user_id"] as? Int == ann.id)
        #expect(try ann2.socket.readCloseCode() == 4005)
        #expect(try bob.client.event("user.deleted")["user_id"] as? Int == ann.id)
        #expect(try cat.client.event("user.deleted")["user_id"] as? Int == ann.id)
        #expect(
            waitFor(
                database, "SELECT count(*) FROM account_deletions WHERE user_id = $1 AND finished_at IS NOT NULL",
                [.int(ann.id)], equals: 1))

        // In the database: everything of ann's gone, the stub left, messages tombstoned.
        let a = PostgresData.int(ann.id)
        #expect(
            try count(
                database,
                "SELECT count(*) FROM users WHERE id = $1 AND deleted_at IS NOT NULL"
                    + " AND phone = 'deleted:' || id AND password_hash = ''",
                [a]) == 1)
        #expect(try count(database, "SELECT count(*) FROM users WHERE phone = $1", [.text(ann.phone)]) == 0)
        #expect(try count(database, "SELECT count(*) FROM sessions WHERE user_id = $1", [a]) == 0)
        #expect(try count(database, "SELECT count(*) FROM friendships WHERE user_low = $1 OR user_high = $1", [a]) == 0)
        #expect(
            try count(database, "SELECT count(*) FROM friend_requests WHERE from_user = $1 OR to_user = $1", [a]) == 0)
        #expect(try count(database, "SELECT count(*) FROM message_reactions WHERE user_id = $1", [a]) == 0)
        #expect(try count(database, "SELECT count(*) FROM voice_clips WHERE uploader_id = $1", [a]) == 0)
        #expect(try count(database, "SELECT count(*) FROM calls WHERE caller_id = $1 OR callee_id = $1", [a]) == 0)
        #expect(try count(database, "SELECT count(*) FROM data_exports WHERE user_id = $1", [a]) == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: exports).filter { $0.hasPrefix("export-") } == [])
        #expect(
            try count(
                database,
                "SELECT count(*) FROM members WHERE user_id = $1 AND left_seq IS NULL AND conversation_id = $2",
                [a, .int(group)]) == 0)
        #expect(try count(database, "SELECT count(*) FROM messages WHERE sender_id = $1", [a]) == 4)
        #expect(
            try count(
                database,
                "SELECT count(*) FROM messages WHERE sender_id = $1 AND body IS NULL AND voice_id IS NULL"
                    + " AND sender_deleted AND deleted_at IS NOT NULL",
                [a]) == 4)
        // Others' data stays: bob's message, bob's reaction on ann's (tombstoned) message, cat's message.
        #expect(
            try count(
                database, "SELECT count(*) FROM messages WHERE sender_id = $1 AND body IS NOT NULL", [.int(bob.id)])
                == 1)
        #expect(
            try count(
                database, "SELECT count(*) FROM messages WHERE id = $1 AND body = 'cat here'",
                [.int(catsMessage["message_id"] as? Int ?? 0)]) == 1)

        // Bob's history: the same seqs, gapless; ann's messages are tombstones of a deleted account.
        let after = try history(bob, direct)
        #expect(after.map { $0["seq"] as? Int ?? 0 } == seqsBefore)
        #expect(seqsBefore == Array(1...seqsBefore.count))
        for message in after where message["sender_id"] as? Int == ann.id {
            #expect(message["deleted"] as? Bool == true)
            #expect(message["sender_deleted"] as? Bool == true)
            #expect(message["text"] == nil && message["voice"] == nil)
        }
        #expect(after.contains { $0["text"] as? String == "bob's reply" })
        let groupHistory = try history(cat, group)
        #expect(groupHistory.map { $0["seq"] as? Int ?? 0 } == Array(1...groupHistory.count))
        #expect(!groupHistory.contains { $0["text"] as? String == "group secret" })
        // The clip is gone for bob too; ann is no friend of anyone; her token is dead.
        #expect(try http(port, "GET", "/voice/\(clip)", token: bob.token).status == 404)
        let bobsFriends = try #require(ok(try bob.client.call("friends.list"))?["friends"] as? [[String: Any]])
        #expect(!bobsFriends.contains { $0["user_id"] as? Int == ann.id })
        #expect(errorCode(try ProtocolClient(port: port).call("authenticate", ["token": ann.token])) == "invalid_token")
        #expect(errorCode(try bob.client.call("friends.request", ["user_id": ann.id])) == "not_found")
        #expect(try http(port, "GET", "/export/\(export)", token: ann.token).status == 401)

        // The phone number registers again: a new account with a new id, nothing of the old one.
        let again = try ProtocolClient(port: port)
        #expect(
            errorCode(try again.call("login", ["phone": ann.phone, "password": ann.password, "device": "x"]))
                == "invalid_credentials")
        let fresh = try #require(
            ok(
                try again.call(
                    "register",
                    ["phone": ann.phone, "password": "a brand new pass 77", "display_name": "Ann again", "device": "d"])
            ))
        #expect(fresh["user_id"] as? Int != ann.id)
        #expect((ok(try again.call("friends.list"))?["friends"] as? [Any])?.isEmpty == true)
        #expect((ok(try again.call("conversations.list"))?["conversations"] as? [Any])?.isEmpty == true)
    }

    @Test func exportArchiveHasTheUsersDataAndOnlyItsOwnerDownloadsIt() throws {
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("sb-exports-\(UUID().uuidString)")
            .path
        let own = try ownDatabase("acct_exp_\(getpid())_\(Int.random(in: 0..<1_000_000))")
        let (server, port, database) = try startProtocolServer {
            $0.account.exportDirectory = exports
            $0.account.exportsPerDay = 2
            $0.databaseURL = own
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let sent = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "client_id": "e1", "text": "export me"])))
        let conversation = try #require(sent["conversation_id"] as? Int)
        _ = try #require(
            ok(
                try bob.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "e2", "text": "from bob"])))
        let clip = try uploadClip(port, ann, seconds: 1)
        _ = try #require(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "e3", "voice_id": clip])))
        _ = try #require(
            ok(try ann.client.call("reactions.set", ["message_id": sent["message_id"] as? Int ?? 0, "emoji": "🎉"])))

        let started = try #require(ok(try ann.client.call("account.export"))?["export"] as? [String: Any])
        let id = try #require(started["export_id"] as? Int)
        #expect(started["state"] as? String == "building")
        let ready = try #require(try ann.client.event("account.export_ready")["export"] as? [String: Any])
        #expect(ready["export_id"] as? Int == id)
        #expect(ready["state"] as? String == "ready")
        #expect(ready["expires_at"] is String)
        let listed = try #require(ok(try ann.client.call("account.exports"))?["exports"] as? [[String: Any]])
        #expect(listed.first?["export_id"] as? Int == id)
        #expect((ok(try bob.client.call("account.exports"))?["exports"] as? [Any])?.isEmpty == true)

        // Only its owner: 404 for bob, 401 without a token, 404 for an unknown id.
        #expect(try http(port, "GET", "/export/\(id)", token: bob.token).status == 404)
        #expect(try http(port, "GET", "/export/\(id)").status == 401)
        #expect(try http(port, "GET", "/export/999999999", token: ann.token).status == 404)
        #expect(try http(port, "GET", "/export/abc", token: ann.token).status == 404)
        let download = try http(port, "GET", "/export/\(id)", token: ann.token)
        #expect(download.status == 200)
        #expect(header(download.head, "Content-Type") == "application/gzip")
        #expect(download.body.count == ready["size"] as? Int)

        // The archive's contents.
        let folder = try extract(download.body).appendingPathComponent("switchboard-export-\(id)")
        let manifest = try #require(try jsonFile(folder.appendingPathComponent("manifest.json")) as? [String: Any])
        #expect(manifest["user_id"] as? Int == ann.id)
        #expect(manifest["export_id"] as? Int == id)
        #expect(manifest["format"] as? String == "switchboard-export-1")
        let profile = try #require(try jsonFile(folder.appendingPathComponent("profile.json")) as? [String: Any])
        #expect(profile["user_id"] as? Int == ann.id)
        #expect(profile["display_name"] as? String == "ann")
        #expect(profile["phone"] as? String == ann.phone)
        let friends = try #require(try jsonFile(folder.appendingPathComponent("friends.json")) as? [[String: Any]])
        #expect(friends.map { $0["user_id"] as? Int } == [bob.id])
        let sessions = try #require(try jsonFile(folder.appendingPathComponent("sessions.json")) as? [[String: Any]])
        #expect(sessions.first?["device"] as? String == "ann-1")
        let conversations = try #require(
            try jsonFile(folder.appendingPathComponent("conversations.json")) as? [[String: Any]])
        #expect(conversations.count == 1)
        let messages = try #require(conversations.first?["messages"] as? [[String: Any]])
        #expect(messages.map { $0["seq"] as? Int ?? 0 } == [1, 2, 3])
        #expect(messages.compactMap { $0["text"] as? String } == ["export me", "from bob"])
        #expect((messages[2]["voice"] as? [String: Any])?["voice_id"] as? Int == clip)
        #expect(
            Set((conversations.first?["members"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? Int }) == [
                ann.id, bob.id,
            ])
        let reactions = try #require(try jsonFile(folder.appendingPathComponent("reactions.json")) as? [[String: Any]])
        #expect(reactions.map { $0["emoji"] as? String } == ["🎉"])
        let clips = try #require(try jsonFile(folder.appendingPathComponent("voice.json")) as? [[String: Any]])
        #expect(clips.map { $0["voice_id"] as? Int } == [clip])
        let audio = try Data(contentsOf: folder.appendingPathComponent("voice/\(clip).ogg"))
        #expect(Array(audio) == (try http(port, "GET", "/voice/\(clip)", token: ann.token).body))
        #expect(audio.prefix(4) == Data("OggS".utf8))
        let hours = try #require(try jsonFile(folder.appendingPathComponent("active_hours.json")) as? [String: Any])
        #expect(hours["time_zone"] as? String == "UTC")
        #expect(hours["days"] is [Any])

        // Limits: at most 2 a day (configured), the third refused with retry_after_ms.
        let second = try #require(
            (ok(try ann.client.call("account.export"))?["export"] as? [String: Any])?["export_id"] as? Int)
        _ = try ann.client.event("account.export_ready")
        let third = try ann.client.call("account.export")
        #expect(errorCode(third) == "rate_limited")
        #expect(((third["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        // Expired: the download is 404 at once (the sweep removes the file later).
        try runSQL(database, "UPDATE data_exports SET expires_at = now() - interval '1 second' WHERE id = \(second)")
        #expect(try http(port, "GET", "/export/\(second)", token: ann.token).status == 404)
    }

    @Test func deletionPasswordsAreRateLimitedLikeLogins() throws {
        let (server, port, database) = try startProtocolServer {
            $0.loginLimits.perPhoneBurst = 3
            $0.loginLimits.perPhoneIntervalSeconds = 60
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        for _ in 0..<3 {
            #expect(
                errorCode(try ann.client.call("account.delete", ["password": "wrong password 1"]))
                    == "invalid_credentials")
        }
        let limited = try ann.client.call("account.delete", ["password": ann.password])
        #expect(errorCode(limited) == "rate_limited")
        #expect(((limited["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        #expect(
            try count(database, "SELECT count(*) FROM users WHERE id = $1 AND deleted_at IS NULL", [.int(ann.id)]) == 1)
        #expect(ok(try ann.client.call("ping")) != nil)
    }

    @Test func aDeletionKilledHalfwayIsFinishedByTheNextStart() throws {
        let dataDir = FileManager.default.temporaryDirectory.appendingPathComponent("sb-acct-kill-\(UUID().uuidString)")
            .path
        // A database of its own: the other suites' servers (same test database) would resume the job themselves.
        let url = try ownDatabase("acct_kill_\(getpid())_\(Int.random(in: 0..<1_000_000))")
        let common = ["--database-url", url, "--export-dir", dataDir + "/exports"]
        var logger = Logger(label: "test")
        logger.logLevel = .warning
        var configuration = ServerConfiguration()
        configuration.databaseURL = url
        configuration.databasePoolSize = 1
        let database = try DatabaseRuntime.open(configuration: configuration, logger: logger)
        defer { database.close() }

        let port = freePort()
        var process = try launchServer(
            dataDir: dataDir, port: port,
            extraArguments: common + ["--deletion-batch", "1", "--deletion-batch-pause", "0.5"])
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let first = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "client_id": "k0", "text": "m0"])))
        let conversation = try #require(first["conversation_id"] as? Int)
        for i in 1..<12 {
            let sender = i % 3 == 0 ? bob : ann
            _ = try #require(
                ok(
                    try sender.client.call(
                        "messages.send", ["conversation_id": conversation, "client_id": "k\(i)", "text": "m\(i)"])))
        }
        let annsCount = try count(database, "SELECT count(*) FROM messages WHERE sender_id = $1", [.int(ann.id)])
        #expect(annsCount == 9)

        #expect(ok(try ann.client.call("account.delete", ["password": ann.password])) != nil)
        // Halfway: some of ann's messages are tombstones, the job is not finished. Then kill -9.
        #expect(
            waitUntil(timeout: 30) {
                (try? count(
                    database, "SELECT count(*) FROM messages WHERE sender_id = $1 AND sender_deleted", [.int(ann.id)]))
                    ?? 0 >= 2
            })
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        let tombstoned = try count(
            database, "SELECT count(*) FROM messages WHERE sender_id = $1 AND sender_deleted", [.int(ann.id)])
        #expect(tombstoned < annsCount)
        #expect(
            try count(
                database, "SELECT count(*) FROM account_deletions WHERE user_id = $1 AND finished_at IS NULL",
                [.int(ann.id)]) == 1)
        #expect(
            try count(
                database, "SELECT count(*) FROM friendships WHERE user_low = $1 OR user_high = $1", [.int(ann.id)]) == 1
        )
        // The number is free already (committed with the request).
        #expect(try count(database, "SELECT count(*) FROM users WHERE phone = $1", [.text(ann.phone)]) == 0)

        // The next start resumes it from where it stopped and finishes it.
        let port2 = freePort()
        process = try launchServer(dataDir: dataDir, port: port2, extraArguments: common)
        #expect(
            waitFor(
                database, "SELECT count(*) FROM account_deletions WHERE user_id = $1 AND finished_at IS NOT NULL",
                [.int(ann.id)], equals: 1))
        #expect(
            try count(
                database, "SELECT count(*) FROM messages WHERE sender_id = $1 AND sender_deleted AND body IS NULL",
                [.int(ann.id)]) == annsCount)
        #expect(
            try count(
                database, "SELECT count(*) FROM friendships WHERE user_low = $1 OR user_high = $1", [.int(ann.id)]) == 0
        )
        #expect(try count(database, "SELECT count(*) FROM sessions WHERE user_id = $1", [.int(ann.id)]) == 0)
        let bobAgain = try reconnect(port2, bob)
        let messages = try #require(
            ok(try bobAgain.call("messages.history", ["conversation_id": conversation, "limit": 100]))?["messages"]
                as? [[String: Any]])
        #expect(messages.map { $0["seq"] as? Int ?? 0 }.sorted() == Array(1...12))
        #expect(messages.filter { $0["sender_deleted"] as? Bool == true }.count == annsCount)
        #expect(messages.filter { $0["text"] != nil }.count == 12 - annsCount)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }
}
