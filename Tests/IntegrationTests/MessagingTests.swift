//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A registered user with its first device.
struct TestUser {
    let id: Int
    let phone: String
    let password: String
    let token: String
    let client: ProtocolClient
}

extension ProtocolClient {
    /// Sets how long reads wait.
    func setTimeout(_ seconds: Double) {
        var tv = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1_000_000))
        setsockopt(socket.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Every `message` event received so far or within `seconds` until `count` are there.
    func messages(count: Int, within seconds: Double = 10) throws -> [[String: Any]] {
        var found: [[String: Any]] = []
        events.removeAll { e in
            if e["ev"] as? String == "message", let m = e["message"] as? [String: Any] {
                found.append(m)
                return true
            }
            return false
        }
        let deadline = Date().addingTimeInterval(seconds)
        while found.count < count && Date() < deadline {
            let e = try next()
            if e["ev"] as? String == "message", let m = e["message"] as? [String: Any] {
                found.append(m)
            } else {
                events.append(e)
            }
        }
        return found
    }

    /// Sends a request without waiting; returns its id.
    @discardableResult
    func send(_ op: String, _ params: [String: Any] = [:]) throws -> Int {
        let id = nextID
        nextID += 1
        var body = params
        body["id"] = id
        body["op"] = op
        try sendRaw(String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        return id
    }

    /// Waits for the reply to `id`, keeping events.
    func reply(_ id: Int) throws -> [String: Any] {
        if let i = events.firstIndex(where: { $0["re"] as? Int == id }) { return events.remove(at: i) }
        while true {
            let message = try next()
            if let re = message["re"] as? Int, re == id { return message }
            events.append(message)
        }
    }
}

/// Sends a closure's non-Sendable captures across a thread boundary in tests (used by one thread at a time).
final class Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

func makeUser(_ port: Int, _ name: String) throws -> TestUser {
    let client = try ProtocolClient(port: port)
    let phone = freshPhone()
    let password = "\(name) secret pass 42"
    let r = try #require(
        ok(
            try client.call(
                "register", ["phone": phone, "password": password, "display_name": name, "device": "\(name)-1"])))
    return TestUser(
        id: try #require(r["user_id"] as? Int), phone: phone, password: password,
        token: try #require(r["session_token"] as? String),
        client: client)
}

/// Another device of the user, authenticated with a new login.
func secondDevice(_ port: Int, _ user: TestUser, _ device: String) throws -> ProtocolClient {
    let client = try ProtocolClient(port: port)
    _ = try #require(ok(try client.call("login", ["phone": user.phone, "password": user.password, "device": device])))
    return client
}

/// A connection authenticated with the user's first token.
func reconnect(_ port: Int, _ user: TestUser) throws -> ProtocolClient {
    let client = try ProtocolClient(port: port)
    _ = try #require(ok(try client.call("authenticate", ["token": user.token])))
    return client
}

func befriend(_ a: TestUser, _ b: TestUser) throws {
    let request = try #require(
        (ok(try a.client.call("friends.request", ["user_id": b.id]))?["request"] as? [String: Any])?["request_id"]
            as? Int)
    _ = try #require(ok(try b.client.call("friends.accept", ["request_id": request])))
}

@Suite("Messaging over the real protocol", .serialized)
struct MessagingTests {
    @Test func oneToOneFlowWithAcksHistoryReadMarkersDeleteAndHide() throws {
        let (server, port, database) = try startProtocolServer { $0.messaging.maxTextCharacters = 50 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let stranger = try makeUser(port, "zed")
        let ann2 = try secondDevice(port, ann, "ann-2")
        #expect(errorCode(try ann.client.call("messages.send", ["user_id": bob.id, "text": "hi"])) == "not_friends")
        try befriend(ann, bob)

        // First message by user id creates the conversation; the ack carries id, seq and ts.
        let ack = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "client_id": "c1", "text": "hello Bob"])))
        let conversation = try #require(ack["conversation_id"] as? Int)
        #expect(ack["seq"] as? Int == 1)
        #expect((ack["ts"] as? String)?.hasSuffix("Z") == true)
        let messageId = try #require(ack["message_id"] as? Int)
        // Bob and Ann's other device get it; the sending connection only gets the ack.
        for client in [bob.client, ann2] {
            let m = try #require(try client.messages(count: 1).first)
            #expect(m["text"] as? String == "hello Bob")
            #expect(m["id"] as? Int == messageId)
            #expect(m["sender_id"] as? Int == ann.id)
            #expect(m["seq"] as? Int == 1)
        }
        // Barrier through the writer: an echo to Ann would be in the batch of her acknowledgement.
        #expect(try ann.client.noEventBeforeWriterBarrier("message", conversation: conversation))

        // Idempotent retry: the same acknowledgement, nothing stored twice, nothing delivered twice.
        let again = try #require(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "c1", "text": "hello Bob"])))
        #expect(again["message_id"] as? Int == messageId)
        #expect(again["seq"] as? Int == 1)
        // Barrier through the writer: a second delivery would be in the batch of the acknowledgement just read.
        #expect(try bob.client.noEventBeforeWriterBarrier("message", conversation: conversation))

        // Text rules.
        #expect(
            errorCode(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "text": String(repeating: "x", count: 51)]))
                == "invalid_text")
        #expect(
            errorCode(try ann.client.call("messages.send", ["conversation_id": conversation, "text": "bell \u{7}"]))
                == "invalid_text")
        #expect(
            errorCode(try ann.client.call("messages.send", ["conversation_id": conversation, "text": ""]))
                == "invalid_text")
        #expect(errorCode(try ann.client.call("messages.send", ["conversation_id": conversation])) == "bad_request")
        // Non-members cannot write or read.
        #expect(
            errorCode(try stranger.client.call("messages.send", ["conversation_id": conversation, "text": "intruder"]))
                == "not_member")
        #expect(
            errorCode(try stranger.client.call("messages.history", ["conversation_id": conversation])) == "not_member")
        #expect(
            errorCode(try stranger.client.call("conversations.get", ["conversation_id": conversation])) == "not_member")

        // Twelve more from Bob; history pages newest first.
        for i in 2...13 {
            let a = try #require(
                ok(
                    try bob.client.call(
                        "messages.send",
                        ["conversation_id": conversation, "client_id": "b\(i)", "text": "line \(i)\nsecond line"])))
            #expect(a["seq"] as? Int == i)
        }
        _ = try ann.client.messages(count: 12)
        _ = try ann2.messages(count: 12)
        let page1 = try #require(ok(try ann.client.call("messages.history", ["conversation_id": conversation])))
        let seqs1 = (page1["messages"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int }
        #expect(seqs1 == Array((4...13).reversed()))
        #expect(page1["has_more"] as? Bool == true)
        let page2 = try #require(
            ok(try ann.client.call("messages.history", ["conversation_id": conversation, "before": 4, "limit": 100])))
        #expect((page2["messages"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [3, 2, 1])
        #expect(page2["has_more"] as? Bool == false)
        #expect(
            errorCode(try ann.client.call("messages.history", ["conversation_id": conversation, "limit": 101]))
                == "bad_request")

        // Unread counts and read receipts.
        let listed = try #require(ok(try ann.client.call("conversations.list"))?["conversations"] as? [[String: Any]])
        let summary = try #require(listed.first { $0["conversation_id"] as? Int == conversation })
        #expect(summary["unread_count"] as? Int == 12)
        #expect(summary["kind"] as? String == "direct")
        #expect(summary["name"] as? String == "bob")
        #expect((summary["last_message"] as? [String: Any])?["seq"] as? Int == 13)
        let read = try #require(
            ok(try ann.client.call("conversations.read", ["conversation_id": conversation, "seq": 10])))
        #expect(read["read_seq"] as? Int == 10)
        let receipt = try bob.client.event("conversation.read")
        #expect(receipt["user_id"] as? Int == ann.id)
        #expect(receipt["seq"] as? Int == 10)
        _ = try ann2.event("conversation.read")
        let after = try #require(
            ok(try ann.client.call("conversations.get", ["conversation_id": conversation]))?["conversation"]
                as? [String: Any])
        #expect(after["unread_count"] as? Int == 3)
        // A marker never moves back or past the end.
        #expect(
            ok(try ann.client.call("conversations.read", ["conversation_id": conversation, "seq": 5]))?["read_seq"]
                as? Int == 10)
        #expect(
            ok(try ann.client.call("conversations.read", ["conversation_id": conversation, "seq": 999]))?["read_seq"]
                as? Int == 13)

        // Delete for everyone: only the sender; a tombstone reaches every device.
        #expect(errorCode(try bob.client.call("messages.delete", ["message_id": messageId])) == "forbidden")
        let tombstone = try #require(
            ok(try ann.client.call("messages.delete", ["message_id": messageId]))?["message"] as? [String: Any])
        #expect((tombstone["system"] as? [String: Any])?["event"] as? String == "message_deleted")
        #expect((tombstone["system"] as? [String: Any])?["message_id"] as? Int == messageId)
        for client in [bob.client, ann2] {
            let m = try #require(try client.messages(count: 1).first)
            #expect((m["system"] as? [String: Any])?["message_id"] as? Int == messageId)
        }
        let deleted = try #require(
            ok(try bob.client.call("messages.history", ["conversation_id": conversation, "before": 2]))?["messages"]
                as? [[String: Any]])
        #expect(deleted.first?["deleted"] as? Bool == true)
        #expect(deleted.first?["text"] == nil)
        #expect(errorCode(try ann.client.call("messages.delete", ["message_id": messageId])) == "not_found")

        // Hide for myself only.
        let hideTarget = try #require((page1["messages"] as? [[String: Any]])?.first?["id"] as? Int)
        #expect(ok(try bob.client.call("messages.hide", ["message_id": hideTarget])) != nil)
        let bobHistory = try #require(
            ok(try bob.client.call("messages.history", ["conversation_id": conversation, "limit": 100]))?["messages"]
                as? [[String: Any]])
        #expect(!bobHistory.contains { $0["id"] as? Int == hideTarget })
        let annHistory = try #require(
            ok(try ann.client.call("messages.history", ["conversation_id": conversation, "limit": 100]))?["messages"]
                as? [[String: Any]])
        #expect(annHistory.contains { $0["id"] as? Int == hideTarget })
        #expect(errorCode(try stranger.client.call("messages.hide", ["message_id": hideTarget])) == "not_found")

        // Observability: the messaging counters move.
        let metrics = String(decoding: try http(port, "GET", "/metrics").body, as: UTF8.self)
        let stored = metrics.split(separator: "\n").first { $0.hasPrefix("switchboard_messages_stored_total ") }
        #expect((stored?.split(separator: " ").last).flatMap { Double($0) } ?? 0 >= 14)
        #expect(metrics.contains("switchboard_message_deliveries_total"))
        #expect(metrics.contains("switchboard_users_available"))
    }

    @Test func groupsCreateAddLeaveRenameAndVisibility() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "Ann")
        let bob = try makeUser(port, "Bob")
        let cat = try makeUser(port, "Cat")
        let dan = try makeUser(port, "Dan")
        let eve = try makeUser(port, "Eve")
        try befriend(ann, bob)
        try befriend(ann, cat)
        try befriend(ann, dan)
        try befriend(bob, eve)

        #expect(errorCode(try ann.client.call("groups.create", ["member_ids": [bob.id]])) == "bad_request")
        #expect(errorCode(try ann.client.call("groups.create", ["member_ids": [bob.id, eve.id]])) == "not_friends")
        let created = try #require(
            ok(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id]]))?["conversation"]
                as? [String: Any])
        let group = try #require(created["conversation_id"] as? Int)
        #expect(created["kind"] as? String == "group")
        #expect(created["name"] as? String == "Bob, Cat")
        #expect((created["members"] as? [[String: Any]])?.count == 3)
        for client in [bob.client, cat.client] {
            let m = try #require(try client.messages(count: 1).first)
            #expect((m["system"] as? [String: Any])?["event"] as? String == "created")
            #expect(m["seq"] as? Int == 1)
        }
        // Messages before Dan joins.
        _ = try #require(ok(try bob.client.call("messages.send", ["conversation_id": group, "text": "before Dan"])))
        _ = try ann.client.messages(count: 1)
        _ = try cat.client.messages(count: 1)
        // Only own friends may be added, only by members.
        #expect(
            errorCode(try bob.client.call("groups.add", ["conversation_id": group, "user_id": dan.id])) == "not_friends"
        )
        #expect(
            errorCode(try eve.client.call("groups.add", ["conversation_id": group, "user_id": bob.id])) == "not_member")
        let added = try #require(
            ok(try ann.client.call("groups.add", ["conversation_id": group, "user_id": dan.id]))?["message"]
                as? [String: Any])
        #expect((added["system"] as? [String: Any])?["event"] as? String == "member_added")
        #expect(
            errorCode(try ann.client.call("groups.add", ["conversation_id": group, "user_id": dan.id])) == "bad_request"
        )
        // Dan sees from his joining on.
        let danFirst = try #require(try dan.client.messages(count: 1).first)
        #expect((danFirst["system"] as? [String: Any])?["event"] as? String == "member_added")
        let danHistory = try #require(
            ok(try dan.client.call("messages.history", ["conversation_id": group]))?["messages"] as? [[String: Any]])
        #expect(danHistory.count == 1)
        _ = try #require(ok(try dan.client.call("messages.send", ["conversation_id": group, "text": "hi all"])))
        for client in [ann.client, bob.client, cat.client] {
            let ms = try client.messages(count: client === ann.client ? 1 : 2)
            #expect(ms.last?["text"] as? String == "hi all")
        }
        // Rename, leave; the group stays with two members.
        _ = try #require(ok(try cat.client.call("groups.rename", ["conversation_id": group, "name": "Lunch"])))
        _ = try #require(ok(try cat.client.call("groups.leave", ["conversation_id": group])))
        _ = try #require(ok(try dan.client.call("groups.leave", ["conversation_id": group])))
        #expect(
            errorCode(try cat.client.call("messages.send", ["conversation_id": group, "text": "still here?"]))
                == "not_member")
        #expect(errorCode(try cat.client.call("groups.leave", ["conversation_id": group])) == "not_member")
        _ = try #require(ok(try bob.client.call("messages.send", ["conversation_id": group, "text": "just us"])))
        let summary = try #require(
            ok(try ann.client.call("conversations.get", ["conversation_id": group]))?["conversation"] as? [String: Any])
        #expect(summary["name"] as? String == "Lunch")
        #expect(
            (summary["members"] as? [[String: Any]])?.compactMap { $0["user_id"] as? Int }.sorted()
                == [ann.id, bob.id].sorted())
        // Cat's history ends with her leaving; she no longer gets new messages.
        let catHistory = try #require(
            ok(try cat.client.call("messages.history", ["conversation_id": group]))?["messages"] as? [[String: Any]])
        #expect((catHistory.first?["system"] as? [String: Any])?["event"] as? String == "member_left")
        #expect(catHistory.allSatisfy { $0["text"] as? String != "just us" })
        let catSummary = try #require(
            ok(try cat.client.call("conversations.get", ["conversation_id": group]))?["conversation"] as? [String: Any])
        #expect(catSummary["active"] as? Bool == false)
    }

    @Test func offlineRecipientGetsExactlyTheMissedMessagesInOrder() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let first = try #require(ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "m1"])))
        let conversation = try #require(first["conversation_id"] as? Int)
        let seen = try #require(try bob.client.messages(count: 1).first?["seq"] as? Int)
        bob.client.socket.shutdownBoth()
        for i in 2...40 {
            _ = try #require(
                ok(
                    try ann.client.call(
                        "messages.send", ["conversation_id": conversation, "client_id": "x\(i)", "text": "m\(i)"])))
        }
        let back = try reconnect(port, bob)
        let sync = try #require(ok(try back.call("sync", ["since": [String(conversation): seen]])))
        let missed = try back.messages(count: 39, within: 1)
        #expect(missed.compactMap { $0["seq"] as? Int } == Array(2...40))
        #expect(missed.compactMap { $0["text"] as? String } == (2...40).map { "m\($0)" })
        #expect(sync["messages"] as? Int == 39)
        #expect((sync["conversations"] as? [[String: Any]])?.first?["last_seq"] as? Int == 40)
        // Nothing more, nothing twice. Barrier: the catch-up is written before the sync's reply (and the messages
        // held meanwhile right after it, in the same loop turn); every send was acknowledged before the reconnect.
        #expect(try back.noEventBeforeBarrier("message"))
        // An empty sync from a fresh device brings the whole history.
        let fresh = try reconnect(port, bob)
        _ = try #require(ok(try fresh.call("sync", [:])))
        #expect(try fresh.messages(count: 40, within: 1).compactMap { $0["seq"] as? Int } == Array(1...40))
    }

    @Test func resumeRacingWithLiveSendsHasNoGapAndNoDuplicate() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let conversation = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "start"]))?["conversation_id"] as? Int)
        _ = try bob.client.messages(count: 1)
        bob.client.socket.shutdownBoth()
        for i in 2...200 {
            _ = try ann.client.send(
                "messages.send", ["conversation_id": conversation, "client_id": "pre\(i)", "text": "pre \(i)"])
        }
        // Ann keeps sending while Bob resumes.
        let total = 600
        let sender = Unchecked(ann.client)
        let done = DispatchSemaphore(value: 0)
        Thread {
            for i in 201...total {
                _ = try? sender.value.send(
                    "messages.send", ["conversation_id": conversation, "client_id": "live\(i)", "text": "live \(i)"])
                if i % 50 == 0 { usleep(2_000) }
            }
            done.signal()
        }.start()
        // authenticate with resume, then sync: live messages are held from the authentication until the
        // catch-up is sent.
        let back = try ProtocolClient(port: port)
        let authId = try back.send("authenticate", ["token": bob.token, "resume": true])
        let syncId = try back.send("sync", ["since": [String(conversation): 1]])
        _ = try #require(ok(try back.reply(authId)))
        _ = try #require(ok(try back.reply(syncId)))
        done.wait()
        let received = try back.messages(count: total - 1, within: 15)
        let seqs = received.compactMap { $0["seq"] as? Int }
        #expect(seqs == Array(2...total))
        // Barrier through the writer (every send was handed to it by now: each seq arrived) and for the catch-up,
        // written before the sync's reply.
        #expect(try back.noEventBeforeWriterBarrier("message", conversation: conversation))
    }

    @Test func presenceGoesToFriendsOnlyWithAGracePeriod() throws {
        let (server, port, database) = try startProtocolServer { $0.messaging.presenceGrace = 0.6 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let zed = try makeUser(port, "zed")
        try befriend(ann, bob)
        // Becoming friends shows each other's presence.
        let annSeesBob = try ann.client.event("presence")
        #expect(annSeesBob["user_id"] as? Int == bob.id)
        #expect(annSeesBob["status"] as? String == "online")
        // A new device gets a snapshot of its friends only.
        let bob2 = try secondDevice(port, bob, "bob-2")
        let snapshot = try bob2.event("presence.snapshot")
        let entries = try #require(snapshot["presence"] as? [[String: Any]])
        #expect(entries.compactMap { $0["user_id"] as? Int } == [ann.id])
        #expect(entries.first?["status"] as? String == "online")
        // Away is the most available status of the devices: Bob is online while one device is.
        _ = try #require(ok(try bob.client.call("presence.set", ["status": "away"])))
        // Barrier: the hub handles the change after its reply; a probe's snapshot comes after it, then Ann's ping.
        var probes = [try presenceBarrier(port, probe: zed)]
        #expect(try ann.client.noEventBeforeBarrier("presence"))
        _ = try #require(ok(try bob2.call("presence.set", ["status": "away"])))
        #expect((try ann.client.event("presence"))["status"] as? String == "away")
        #expect(errorCode(try bob2.call("presence.set", ["status": "invisible"])) == "bad_request")
        // Going offline waits for the grace period; a quick reconnect does not flap.
        let open = server.connectionCount
        bob.client.socket.shutdownBoth()
        bob2.socket.shutdownBoth()
        #expect(waitUntil { server.connectionCount <= open - 2 })
        let bob3 = try reconnect(port, bob)
        let online = try ann.client.event("presence")  // back to online (a new device starts online)
        #expect(online["status"] as? String == "online")
        ann.client.events.removeAll()
        bob3.socket.shutdownBoth()
        // Not at once: once the server closed the connection (it tells the hub first), a probe's snapshot comes after
        // the hub handled the disconnection, then Ann's ping; the grace period (0.6 s) is only for this barrier to
        // come first.
        #expect(waitUntil { server.connectionCount <= open - 2 })
        probes.append(try presenceBarrier(port, probe: zed))
        #expect(try ann.client.noEventBeforeBarrier("presence"))
        let offline = try ann.client.event("presence")
        #expect(offline["status"] as? String == "offline")
        #expect((offline["last_seen"] as? String)?.hasSuffix("Z") == true)
        // Strangers hear nothing. Barrier: the hub handed every change so far to the outbox before a probe's
        // snapshot.
        probes.append(try presenceBarrier(port, probe: zed))
        #expect(try zed.client.noEventBeforeBarrier("presence"))
        #expect(
            !zed.client.events.contains {
                $0["ev"] as? String == "presence"
                    || $0["ev"] as? String == "presence.snapshot" && (($0["presence"] as? [Any])?.isEmpty == false)
            })
        withExtendedLifetime(probes) {}  // open to the end (see `presenceBarrier`)
    }

    @Test func typingIsDeliveredToMembersAndExpires() throws {
        let (server, port, database) = try startProtocolServer { $0.messaging.typingTTL = 0.4 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let zed = try makeUser(port, "zed")
        try befriend(ann, bob)
        let conversation =
            try #require(
                ok(try ann.client.call("conversations.direct", ["user_id": bob.id]))?["conversation"]
                    as? [String: Any])["conversation_id"] as? Int
        let id = try #require(conversation)
        _ = try #require(ok(try ann.client.call("typing", ["conversation_id": id])))
        let started = try bob.client.event("typing")
        #expect(started["active"] as? Bool == true)
        #expect(started["user_id"] as? Int == ann.id)
        #expect(started["expires_in_ms"] as? Int == 400)
        let expired = try bob.client.event("typing")
        #expect(expired["active"] as? Bool == false)
        // Recording, stopped by a message.
        _ = try #require(ok(try ann.client.call("typing", ["conversation_id": id, "activity": "recording"])))
        #expect((try bob.client.event("typing"))["activity"] as? String == "recording")
        _ = try #require(ok(try ann.client.call("messages.send", ["conversation_id": id, "text": "voice later"])))
        let stopped = try bob.client.event("typing")
        #expect(stopped["active"] as? Bool == false)
        #expect(stopped["activity"] as? String == "recording")
        #expect(errorCode(try zed.client.call("typing", ["conversation_id": id])) == "not_member")
        #expect(
            errorCode(try ann.client.call("typing", ["conversation_id": id, "activity": "dancing"])) == "bad_request")
        // Rate limit per sender.
        var limited = false
        for _ in 0..<30 where !limited {
            limited = errorCode(try ann.client.call("typing", ["conversation_id": id])) == "rate_limited"
        }
        #expect(limited)
    }

    @Test func sendsAreRateLimitedPerUser() throws {
        let (server, port, database) = try startProtocolServer {
            $0.messaging.sendBurst = 5
            $0.messaging.sendsPerSecond = 1
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let ann2 = try secondDevice(port, ann, "ann-2")
        var codes: [String?] = []
        for i in 0..<6 {
            let client = i % 2 == 0 ? ann.client : ann2  // the limit is per user, over all devices
            codes.append(errorCode(try client.call("messages.send", ["user_id": bob.id, "text": "m\(i)"])))
        }
        #expect(codes.prefix(5).allSatisfy { $0 == nil })
        let limited = try ann2.call("messages.send", ["user_id": bob.id, "text": "one too many"])
        #expect(errorCode(limited) == "rate_limited")
        #expect(((limited["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        // Bob is not affected.
        #expect(errorCode(try bob.client.call("messages.send", ["user_id": ann.id, "text": "fine"])) == nil)
    }
}
