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
import SwitchboardStore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension ProtocolClient {
    /// Sends a request given as raw JSON text (for numbers `JSONSerialization` cannot write) and waits for its reply.
    func callRaw(_ json: String, id: Int) throws -> [String: Any] {
        try sendRaw(json)
        return try reply(id)
    }
}

/// Runs SQL on the test database (blocking the test's thread).
func runSQL(_ database: DatabaseRuntime, _ sql: String) throws {
    let done = DispatchSemaphore(value: 0)
    let result = Unchecked(NSMutableArray())
    database.pool.withConnection(
        on: DispatchQueue(label: "test.sql"), { db in try db.executeScript(sql) },
        completion: { r in
            if case .failure(let error) = r { result.value.add("\(error)") }
            done.signal()
        })
    done.wait()
    if let error = result.value.firstObject { throw TestSQLError(description: "\(error)") }
}

/// Makes the next batch's COMMIT answer "lost": once armed, the writer's connection terminates its own backend
/// right after a COMMIT succeeded, so the writer sees a connection failure for a batch that did commit.
final class LostCommitAnswer: Sendable {
    private let armed = Atomic<Bool>(false)
    func arm() { armed.store(true, ordering: .sequentiallyConsistent) }
    var fired: Bool { !armed.load(ordering: .sequentiallyConsistent) }
    var sql: @Sendable () -> String? {
        { [self] in
            armed.exchange(false, ordering: .sequentiallyConsistent)
                ? "SELECT pg_terminate_backend(pg_backend_pid())" : nil
        }
    }
}

struct TestSQLError: Error, CustomStringConvertible { var description: String }

/// Issue 13: hostile integers and strings, one bad write among good ones, and what strangers can learn.
@Suite("Messaging hardening over the real protocol", .serialized)
struct MessagingHardeningTests {
    /// Every integer a client sends, at the extremes of Int64 (and beyond): each request is answered and the
    /// server stays up. `messages.history` with `before: Int64.min` used to trap on `before - 1`.
    @Test func extremeIntegersAreAnsweredAndTheServerStaysUp() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let conversation = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "one"]))?["conversation_id"] as? Int)
        _ = try #require(ok(try ann.client.call("messages.send", ["conversation_id": conversation, "text": "two"])))
        let c = ann.client
        let min = Int(Int64.min)
        let max = Int(Int64.max)

        // History cursors: nonsense is refused, the top of the range reads everything.
        #expect(
            errorCode(try c.call("messages.history", ["conversation_id": conversation, "before": min])) == "bad_request"
        )
        #expect(
            errorCode(try c.call("messages.history", ["conversation_id": conversation, "before": -1])) == "bad_request")
        #expect(
            errorCode(try c.call("messages.history", ["conversation_id": conversation, "before": 0])) == "bad_request")
        let all = try #require(ok(try c.call("messages.history", ["conversation_id": conversation, "before": max])))
        #expect((all["messages"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [2, 1])
        let none = try #require(ok(try c.call("messages.history", ["conversation_id": conversation, "before": 1])))
        #expect((none["messages"] as? [[String: Any]])?.isEmpty == true)
        for limit in [min, -1, 0, max] {
            #expect(
                errorCode(try c.call("messages.history", ["conversation_id": conversation, "limit": limit]))
                    == "bad_request")
        }
        // Beyond Int64: a decoding error, not a crash.
        #expect(
            errorCode(
                try c.callRaw(
                    #"{"id":9001,"op":"messages.history","conversation_id":\#(conversation),"#
                        + #""before":9223372036854775808}"#,
                    id: 9001)) == "bad_request")
        #expect(
            errorCode(
                try c.callRaw(
                    #"{"id":9002,"op":"messages.history","conversation_id":\#(conversation),"limit":1e300}"#, id: 9002))
                == "bad_request")
        #expect(
            errorCode(
                try c.callRaw(#"{"id":9003,"op":"messages.history","conversation_id":-9223372036854775809}"#, id: 9003))
                == "bad_request")
        for id in [min, -1, 0, max] {
            #expect(errorCode(try c.call("messages.history", ["conversation_id": id, "before": max])) == "not_member")
            #expect(errorCode(try c.call("messages.history", ["conversation_id": id, "before": 1])) == "not_member")
        }

        // Read markers.
        #expect(
            ok(try c.call("conversations.read", ["conversation_id": conversation, "seq": max]))?["read_seq"] as? Int
                == 2)
        #expect(
            errorCode(try c.call("conversations.read", ["conversation_id": conversation, "seq": min])) == "bad_request")
        #expect(errorCode(try c.call("conversations.read", ["conversation_id": min, "seq": max])) == "not_member")

        // Sync: extreme cursors and keys.
        let synced = try #require(
            ok(
                try c.call(
                    "sync", ["since": [String(conversation): max, String(Int64.min): 0, String(Int64.max): max]])))
        #expect(synced["messages"] as? Int == 0)
        #expect(errorCode(try c.call("sync", ["since": [String(conversation): min]])) == "bad_request")
        #expect(errorCode(try c.call("sync", ["since": ["9223372036854775808": 1]])) == "bad_request")
        #expect(errorCode(try c.call("sync", ["since": ["twelve": 1]])) == "bad_request")
        let fromZero = try #require(ok(try c.call("sync", ["since": [String(conversation): 0]])))
        #expect(fromZero["messages"] as? Int == 2)

        // Ids everywhere else.
        for id in [min, -1, 0, max] {
            #expect(errorCode(try c.call("messages.send", ["conversation_id": id, "text": "x"])) == "not_member")
            #expect(errorCode(try c.call("messages.delete", ["message_id": id])) == "not_found")
            #expect(errorCode(try c.call("messages.hide", ["message_id": id])) == "not_found")
            #expect(errorCode(try c.call("conversations.get", ["conversation_id": id])) == "not_member")
            #expect(errorCode(try c.call("typing", ["conversation_id": id])) == "not_member")
            #expect(
                errorCode(try c.call("groups.add", ["conversation_id": conversation, "user_id": id])) == "bad_request")
            #expect(errorCode(try c.call("groups.leave", ["conversation_id": id])) == "not_member")
            #expect(errorCode(try c.call("conversations.direct", ["user_id": id])) == "not_friends")
            #expect(errorCode(try c.call("friends.request", ["user_id": id])) == "not_found")
            #expect(errorCode(try c.call("friends.accept", ["request_id": id])) == "not_found")
            #expect(errorCode(try c.call("friends.remove", ["user_id": id])) == "not_friends")
            #expect(errorCode(try c.call("profile.get", ["user_id": id])) == "not_found")
            #expect(errorCode(try c.call("sessions.revoke", ["session_id": id])) == "not_found")
            #expect(
                errorCode(try c.call("messages.send", ["conversation_id": conversation, "voice_id": id])) == "not_found"
            )
        }

        // Still up, on this connection and a new one.
        #expect(ok(try c.call("ping")) != nil)
        let fresh = try reconnect(port, bob)
        #expect(ok(try fresh.call("ping")) != nil)
    }

    /// Every string the server stores is checked before it reaches a query: no U+0000, no control characters in
    /// one-line strings, and a byte limit besides the character limit. U+0000 in a `client_id` used to reach
    /// PostgreSQL (22P02) and fail its whole batch with `internal`.
    @Test func badStringsAreRefusedBeforeTheDatabase() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let zalgo = "a" + String(repeating: "\u{301}", count: 20_000)  // one character, 40 KB
        #expect(zalgo.count == 1)
        let fresh = try ProtocolClient(port: port)
        func register(_ name: String, _ device: String, password: String = "a fine pass 42") throws -> [String: Any] {
            try fresh.call(
                "register", ["phone": freshPhone(), "password": password, "display_name": name, "device": device])
        }
        for (name, device) in [
            ("a\u{0}b", "d"), ("ann", "d\u{0}"), (zalgo, "d"), ("ann", zalgo), ("a\u{1B}[31m", "d"),
            ("ann", "line\nbreak"),
            ("a\u{2028}b", "d"), (String(repeating: "\u{1F600}", count: 65), "d"), ("\u{0}", "d"),
        ] {
            let reply = try register(name, device)
            #expect(
                errorCode(reply) == "bad_request",
                "\(name.unicodeScalars.prefix(4)) / \(device.unicodeScalars.prefix(4))")
        }
        #expect(
            ((try register(zalgo, "d"))["error"] as? [String: Any])?["message"] as? String
                == "display_name is longer than 2048 bytes (UTF-8)")
        #expect(
            ((try register("a\u{0}b", "d"))["error"] as? [String: Any])?["message"] as? String
                == "display_name contains U+0000")
        #expect(errorCode(try register("ann", "d", password: "a fine\u{0} pass 42")) == "bad_request")
        // 64 characters of 4 bytes each is fine: 256 bytes.
        let emoji = String(repeating: "\u{1F600}", count: 64)
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        try befriend(ann, bob)
        try befriend(ann, cat)
        #expect(ok(try ann.client.call("profile.update", ["display_name": emoji])) != nil)
        #expect(errorCode(try ann.client.call("profile.update", ["display_name": zalgo])) == "bad_request")
        #expect(errorCode(try ann.client.call("profile.update", ["display_name": "x\u{0}"])) == "bad_request")
        let login = try ProtocolClient(port: port)
        #expect(
            errorCode(try login.call("login", ["phone": ann.phone, "password": ann.password, "device": "d\u{0}"]))
                == "bad_request")

        let conversation = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "hi"]))?["conversation_id"] as? Int)
        for clientId in ["a\u{0}", "\u{0}", "tab\there", "x\u{7F}", String(repeating: "é", count: 33)] {
            let reply = try ann.client.call(
                "messages.send", ["conversation_id": conversation, "client_id": clientId, "text": "x"])
            #expect(errorCode(reply) == "bad_request", "\(clientId.unicodeScalars.prefix(4))")
        }
        #expect(
            errorCode(
                try ann.client.call("messages.send", ["conversation_id": conversation, "text": "nul \u{0} inside"]))
                == "invalid_text")
        let big = try ann.client.call("messages.send", ["conversation_id": conversation, "text": zalgo])
        #expect(errorCode(big) == "invalid_text")
        #expect((big["error"] as? [String: Any])?["message"] as? String == "text is longer than 16384 bytes (UTF-8)")
        #expect(
            errorCode(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id], "name": "a\u{0}"]))
                == "bad_request")
        #expect(
            errorCode(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id], "name": zalgo]))
                == "bad_request")
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id], "name": "Lunch"]))?[
                "conversation"] as? [String: Any])?["conversation_id"] as? Int)
        #expect(
            errorCode(try ann.client.call("groups.rename", ["conversation_id": group, "name": "tab\tname"]))
                == "bad_request")
        #expect(errorCode(try ann.client.call("friends.request", ["phone": "+1555\u{0}1234567"])) == "invalid_phone")
        #expect(
            ok(try ann.client.call("contacts.match", ["phones": ["+1\u{0}5551234567", bob.phone]]))?["matches"]
                as? [[String: Any]] != nil)
        // Nothing above failed a write of someone else, and the server answers.
        #expect(
            ok(
                try bob.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "fine", "text": "still fine"]))
                != nil)
    }

    /// A write the database refuses (here a CHECK constraint the server does not know about, standing in for any
    /// value only PostgreSQL rejects) among many concurrent good writes of other users in the same writer: the
    /// batch is bisected, every good write is acknowledged and stored, the bad one gets `bad_request`. It used
    /// to fail the whole batch with `internal`.
    @Test func oneWriteTheDatabaseRefusesDoesNotFailTheOthersInItsBatch() throws {
        let (server, port, database) = try startProtocolServer { $0.messaging.writers = 1 }
        defer { stop(server); database.close() }
        let poison = "poison-\(UInt64.random(in: 0...UInt64.max))"
        let constraint = "test_no_poison_\(UInt32.random(in: 0...UInt32.max))"
        try runSQL(
            database,
            "ALTER TABLE messages ADD CONSTRAINT \(constraint) CHECK (body IS DISTINCT FROM '\(poison)') NOT VALID")
        defer { try? runSQL(database, "ALTER TABLE messages DROP CONSTRAINT IF EXISTS \(constraint)") }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        let dan = try makeUser(port, "dan")
        try befriend(ann, bob)
        try befriend(cat, dan)
        let annConversation = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "start"]))?["conversation_id"] as? Int)
        let catConversation = try #require(
            ok(try cat.client.call("messages.send", ["user_id": dan.id, "text": "start"]))?["conversation_id"] as? Int)
        // Both pipeline their sends; Cat's stream carries the poison five times.
        let count = 200
        var annIds: [Int] = []
        var catIds: [Int: Bool] = [:]  // request id -> is poison
        for i in 0..<count {
            annIds.append(
                try ann.client.send(
                    "messages.send", ["conversation_id": annConversation, "client_id": "a\(i)", "text": "ann \(i)"]))
            let bad = i % 40 == 20
            let id = try cat.client.send(
                "messages.send",
                ["conversation_id": catConversation, "client_id": "c\(i)", "text": bad ? poison : "cat \(i)"])
            catIds[id] = bad
        }
        var annCodes: [String?] = []
        for id in annIds { annCodes.append(errorCode(try ann.client.reply(id))) }
        #expect(annCodes.allSatisfy { $0 == nil }, "\(annCodes.compactMap { $0 })")
        var poisonCodes: [String?] = []
        var goodCodes: [String?] = []
        for (id, bad) in catIds.sorted(by: { $0.key < $1.key }) {
            let code = errorCode(try cat.client.reply(id))
            if bad { poisonCodes.append(code) } else { goodCodes.append(code) }
        }
        #expect(goodCodes.allSatisfy { $0 == nil }, "\(goodCodes.compactMap { $0 })")
        #expect(poisonCodes == Array(repeating: "bad_request", count: 5))
        // Stored: every good write once, seqs without gaps.
        for (client, conversation, expected) in [
            (bob.client, annConversation, count + 1), (dan.client, catConversation, count - 5 + 1),
        ] {
            var seqs: [Int] = []
            var before = Int(Int64.max)
            while true {
                let page = try #require(
                    ok(
                        try client.call(
                            "messages.history", ["conversation_id": conversation, "limit": 100, "before": before])))
                let messages = try #require(page["messages"] as? [[String: Any]])
                seqs += messages.compactMap { $0["seq"] as? Int }
                #expect(!messages.contains { $0["text"] as? String == poison })
                guard page["has_more"] as? Bool == true, let last = messages.last?["seq"] as? Int else { break }
                before = last
            }
            #expect(seqs.sorted() == Array(1...expected))
        }
    }

    /// A stranger gets byte-identical answers (except `re`) for an existing conversation or message id and for one
    /// that does not exist, in every messaging op; it used to get `not_member` for one and `not_found` (or a
    /// `bad_request` naming a direct conversation, or "of this group") for the other.
    @Test func strangersCannotTellWhichConversationsAndMessagesExist() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        let zed = try makeUser(port, "zed")
        try befriend(ann, bob)
        try befriend(ann, cat)
        try befriend(zed, bob)
        let sent = try #require(ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "private"])))
        let direct = try #require(sent["conversation_id"] as? Int)
        let messageId = try #require(sent["message_id"] as? Int)
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id]]))?["conversation"]
                as? [String: Any])?["conversation_id"] as? Int)
        let groupMessage = try #require(
            ok(try ann.client.call("messages.send", ["conversation_id": group, "text": "group only"]))?["message_id"]
                as? Int)
        let missingConversation = Int(Int64.max) - Int.random(in: 1..<1_000_000)
        let missingMessage = Int(Int64.max) - Int.random(in: 1..<1_000_000)

        /// The reply without `re`, as canonical JSON.
        func answer(_ op: String, _ params: [String: Any]) throws -> String {
            var reply = try zed.client.call(op, params)
            reply["re"] = nil
            return String(
                decoding: try JSONSerialization.data(withJSONObject: reply, options: [.sortedKeys]), as: UTF8.self)
        }
        let conversationOps: [(String, (Int) -> [String: Any])] = [
            ("conversations.get", { ["conversation_id": $0] }),
            ("messages.history", { ["conversation_id": $0] }),
            ("messages.send", { ["conversation_id": $0, "text": "hello?"] }),
            ("messages.send", { ["conversation_id": $0, "client_id": "probe", "text": "hello?"] }),
            ("groups.add", { ["conversation_id": $0, "user_id": bob.id] }),
            ("groups.leave", { ["conversation_id": $0] }),
            ("groups.rename", { ["conversation_id": $0, "name": "mine"] }),
            ("conversations.read", { ["conversation_id": $0, "seq": 1] }),
            ("typing", { ["conversation_id": $0] }),
        ]
        for (op, params) in conversationOps {
            let missing = try answer(op, params(missingConversation))
            #expect(missing.contains("\"not_member\""), "\(op): \(missing)")
            for existing in [direct, group] {
                #expect(try answer(op, params(existing)) == missing, "\(op) on an existing conversation")
            }
        }
        for op in ["messages.delete", "messages.hide"] {
            let missing = try answer(op, ["message_id": missingMessage])
            #expect(missing.contains("\"not_found\""), "\(op): \(missing)")
            for existing in [messageId, groupMessage] {
                #expect(try answer(op, ["message_id": existing]) == missing, "\(op) on an existing message")
            }
        }
        // Nothing was changed by the probes.
        let history = try #require(
            ok(try bob.client.call("messages.history", ["conversation_id": direct]))?["messages"] as? [[String: Any]])
        #expect(history.compactMap { $0["text"] as? String } == ["private"])
    }

    /// After `friends.remove`, typing in the direct conversation is refused (`not_friends`) and not delivered;
    /// so are messages. Typing used to reach the ex-friend.
    @Test func typingDoesNotReachAnExFriend() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let conversation = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "hi"]))?["conversation_id"] as? Int)
        _ = try bob.client.messages(count: 1)
        // While friends, typing flows.
        _ = try #require(ok(try ann.client.call("typing", ["conversation_id": conversation])))
        #expect((try bob.client.event("typing"))["active"] as? Bool == true)
        _ = try #require(ok(try ann.client.call("typing", ["conversation_id": conversation, "active": false])))
        #expect((try bob.client.event("typing"))["active"] as? Bool == false)
        _ = try #require(ok(try bob.client.call("friends.remove", ["user_id": ann.id])))
        #expect(errorCode(try ann.client.call("typing", ["conversation_id": conversation])) == "not_friends")
        #expect(
            errorCode(try ann.client.call("typing", ["conversation_id": conversation, "activity": "recording"]))
                == "not_friends")
        #expect(
            errorCode(try ann.client.call("messages.send", ["conversation_id": conversation, "text": "still there?"]))
                == "not_friends")
        #expect(errorCode(try bob.client.call("typing", ["conversation_id": conversation])) == "not_friends")
        // Barrier: Ann's refused typing and send were answered by the conversation's writer, and Bob's own typing
        // after them went to that writer's serial queue too: what it would have sent Bob came before that reply (kept
        // by `call`), and the ping covers his loop.
        #expect(try bob.client.noEventBeforeBarrier("typing"))
        #expect(try bob.client.noEventBeforeBarrier("message"))
    }

    /// The database connection fails right after a batch's COMMIT succeeded (its answer is lost): the writer asks
    /// the database whether the transaction committed (`txid_status`) before answering, so the sender gets its
    /// acknowledgement, the other member gets the message live, and the next message takes the next seq. It used
    /// to answer `unavailable` (or `internal`) for a stored message that was then never delivered live.
    @Test func aCommitWhoseAnswerIsLostIsResolvedThenAcknowledgedAndDelivered() throws {
        let lost = LostCommitAnswer()
        let (server, port, database) = try startProtocolServer {
            $0.messaging.writers = 1
            $0.messaging.sqlAfterCommitForTesting = lost.sql
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let conversation = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "client_id": "c1", "text": "m1"]))?[
                "conversation_id"] as? Int)
        #expect(try bob.client.messages(count: 1).first?["seq"] as? Int == 1)
        lost.arm()
        let ack = try ann.client.call(
            "messages.send", ["conversation_id": conversation, "client_id": "c2", "text": "m2"])
        #expect(lost.fired)
        #expect(ok(ack)?["seq"] as? Int == 2, "\(ack)")
        let live = try bob.client.messages(count: 1)
        #expect(live.compactMap { $0["seq"] as? Int } == [2])
        #expect(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "c3", "text": "m3"]))?["seq"]
                as? Int == 3)
        #expect(try bob.client.messages(count: 1).compactMap { $0["seq"] as? Int } == [3])
        let history = try #require(
            ok(try bob.client.call("messages.history", ["conversation_id": conversation]))?["messages"]
                as? [[String: Any]])
        #expect(history.compactMap { $0["text"] as? String } == ["m3", "m2", "m1"])
    }

    /// When the outcome cannot be resolved (resolution disabled here, as after its timeout) the write is answered
    /// `unavailable` although it committed, and is not delivered live: a later `sync` on the same connection must
    /// still send it (the connection records exactly which seqs it was sent; it used to assume its live
    /// deliveries were contiguous and skipped the gap), and a resend with the same `client_id` gets the
    /// original acknowledgement.
    @Test func aCommittedMessageThatMissedLiveDeliveryComesWithTheNextSync() throws {
        let lost = LostCommitAnswer()
        let (server, port, database) = try startProtocolServer {
            $0.messaging.writers = 1
            $0.messaging.commitResolutionTimeout = 0
            $0.messaging.sqlAfterCommitForTesting = lost.sql
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let conversation = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "client_id": "c1", "text": "m1"]))?[
                "conversation_id"] as? Int)
        #expect(try bob.client.messages(count: 1).first?["seq"] as? Int == 1)
        lost.arm()
        #expect(
            errorCode(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "c2", "text": "m2"]))
                == "unavailable")
        #expect(lost.fired)
        #expect(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "c3", "text": "m3"]))?["seq"]
                as? Int == 3)
        #expect(try bob.client.messages(count: 1).compactMap { $0["seq"] as? Int } == [3])
        // Bob's connection was sent 1 and 3 live; its sync from 1 brings 2, and only 2.
        _ = try #require(ok(try bob.client.call("sync", ["since": [String(conversation): 1]])))
        #expect(try bob.client.messages(count: 1, within: 2).compactMap { $0["text"] as? String } == ["m2"])
        // Barrier: the catch-up is written before the sync's reply, the messages held meanwhile right after it.
        #expect(try bob.client.noEventBeforeBarrier("message"))
        // The resend finds the committed message.
        #expect(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "c2", "text": "m2"]))?["seq"]
                as? Int == 2)
    }
}
