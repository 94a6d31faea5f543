//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Glibc
import SwitchboardStore
import Testing

/// Every timestamp the server sends has one format: ISO 8601 in UTC with milliseconds (issue 14 item 3).
@Suite("One timestamp format on the wire", .serialized)
struct WireTimestampTests {
    static let keys: Set<String> = [
        "ts", "created_at", "last_seen_at", "last_activity_at", "last_seen", "started_at", "answered_at", "ended_at",
    ]
    static let format = try! NSRegularExpression(pattern: #"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$"#)
    /// Anything that starts like a date must be a wire timestamp too (catches fields not in `keys`).
    static let dateLike = try! NSRegularExpression(pattern: #"^\d{4}-\d{2}-\d{2}[T ]\d{2}:"#)

    static func matches(_ regex: NSRegularExpression, _ text: String) -> Bool {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// Collects every timestamp in a reply or event; records an issue for each one in another format.
    final class Checker {
        var seen: [String: Int] = [:]

        func check(_ message: [String: Any], _ context: String, sourceLocation: SourceLocation = #_sourceLocation) {
            walk(message, key: nil, context, sourceLocation)
        }

        private func walk(_ value: Any, key: String?, _ context: String, _ sourceLocation: SourceLocation) {
            switch value {
            case let object as [String: Any]: for (k, v) in object { walk(v, key: k, context, sourceLocation) }
            case let array as [Any]: for v in array { walk(v, key: key, context, sourceLocation) }
            case let text as String:
                if let key,
                    WireTimestampTests.keys.contains(key)
                        || WireTimestampTests.matches(WireTimestampTests.dateLike, text)
                {
                    #expect(
                        WireTimestampTests.matches(WireTimestampTests.format, text), "\(context): \(key) = \(text)",
                        sourceLocation: sourceLocation)
                    seen[key, default: 0] += 1
                }
            default: break
            }
        }
    }

    @Test func everyTimestampInRepliesAndEventsIsMillisecondsUTC() throws {
        let (server, port, database) = try startProtocolServer {
            $0.calls.ringTimeout = 30
            $0.messaging.presenceGrace = 0.05
        }
        defer { stop(server); database.close() }
        let checker = Checker()
        let ann = try makeUser(port, "Ann")
        let bob = try makeUser(port, "Bob")
        let carl = try makeUser(port, "Carl")
        // Friend requests: the reply, the event, the lists.
        let request = try ann.client.call("friends.request", ["user_id": bob.id])
        checker.check(request, "friends.request")
        checker.check(try bob.client.event("friend.request.received"), "friend.request.received")
        let requests = try bob.client.call("friends.requests")
        checker.check(requests, "friends.requests")
        let requestId = try #require(((ok(request)?["request"] as? [String: Any])?["request_id"]) as? Int)
        checker.check(try bob.client.call("friends.accept", ["request_id": requestId]), "friends.accept")
        try befriend(ann, carl)
        // Sessions.
        checker.check(try ann.client.call("sessions.list"), "sessions.list")
        // Messages: the acknowledgement, the event, the history, the conversation list.
        checker.check(
            try ann.client.call("messages.send", ["user_id": bob.id, "text": "hi", "client_id": "t-1"]), "messages.send"
        )
        checker.check(try bob.client.event("message"), "message")
        let list = try bob.client.call("conversations.list")
        checker.check(list, "conversations.list")
        let conversation = try #require(
            (ok(list)?["conversations"] as? [[String: Any]])?.first?["conversation_id"] as? Int)
        checker.check(try bob.client.call("messages.history", ["conversation_id": conversation]), "messages.history")
        // A call answered and hung up, then its history row (started, answered, ended).
        let invite = try #require(
            ok(try ann.client.call("call.invite", ["callee_id": bob.id, "media": "voice", "offer": "v=0 offer"])))
        let callId = try #require((invite["call"] as? [String: Any])?["call_id"] as? String)
        checker.check(try bob.client.event("call.ring"), "call.ring")
        checker.check(try bob.client.call("call.accept", ["call_id": callId, "answer": "v=0 answer"]), "call.accept")
        checker.check(try ann.client.event("call.accepted"), "call.accepted")
        checker.check(try ann.client.call("call.hangup", ["call_id": callId]), "call.hangup")
        checker.check(try bob.client.event("call.ended"), "call.ended")
        var history: [[String: Any]] = []
        for _ in 0..<100 where history.isEmpty {  // the row is written before call.ended goes out; bounded anyway
            let reply = try ann.client.call("call.history")
            checker.check(reply, "call.history")
            history = ok(reply)?["calls"] as? [[String: Any]] ?? []
        }
        #expect(history.first?["answered_at"] != nil)
        // The last `ended_at` is an exact cursor: the page before it does not repeat the call.
        let endedAt = try #require(history.first?["ended_at"] as? String)
        let older = try #require(ok(try ann.client.call("call.history", ["before": endedAt])))
        #expect((older["calls"] as? [[String: Any]])?.isEmpty == true)
        // Presence: going offline (the hub's clock), then a fresh server reading last seen from the database.
        carl.client.socket.shutdownBoth()
        var offline: [String: Any] = [:]
        for _ in 0..<20 where offline["status"] as? String != "offline" { offline = try ann.client.event("presence") }
        #expect(offline["status"] as? String == "offline")
        checker.check(offline, "presence")
        // The database's copy of last seen is written after the event: wait for it (bounded).
        var stored = false
        let carlId = Int64(carl.id)
        for _ in 0..<200 where !stored {
            stored =
                try database.pool.connectionForTests { db in
                    try db.execute(cached: "SELECT last_seen_at IS NOT NULL FROM users WHERE id = $1", [.int(carlId)])
                        .decodeFirst(Bool.self)
                } == true
            if !stored { usleep(10_000) }
        }
        #expect(stored)
        let (second, secondPort, secondDatabase) = try startProtocolServer()
        defer { stop(second); secondDatabase.close() }
        let again = try reconnect(secondPort, ann)
        let snapshot = try again.event("presence.snapshot")
        checker.check(snapshot, "presence.snapshot")
        #expect((snapshot["presence"] as? [[String: Any]])?.contains { $0["last_seen"] != nil } == true)
        for (context, message) in [ann.client.events, bob.client.events, again.events].joined().enumerated() {
            checker.check(message, "event \(context)")
        }
        for key in [
            "ts", "created_at", "last_seen_at", "last_activity_at", "last_seen", "started_at", "answered_at",
            "ended_at",
        ] {
            #expect(checker.seen[key, default: 0] > 0, "no \(key) seen")
        }
    }
}
