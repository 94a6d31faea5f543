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

extension ProtocolClient {
    /// Sends a request given as raw JSON text (for numbers `JSONSerialization` cannot write) and waits for its reply.
    func callRaw(_ json: String, id: Int) throws -> [String: Any] {
        try sendRaw(json)
        return try reply(id)
    }
}

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
        let conversation = try #require(ok(try ann.client.call("messages.send", ["user_id": bob.id, "text": "one"]))?["conversation_id"] as? Int)
        _ = try #require(ok(try ann.client.call("messages.send", ["conversation_id": conversation, "text": "two"])))
        let c = ann.client
        let min = Int(Int64.min)
        let max = Int(Int64.max)

        // History cursors: nonsense is refused, the top of the range reads everything.
        #expect(errorCode(try c.call("messages.history", ["conversation_id": conversation, "before": min])) == "bad_request")
        #expect(errorCode(try c.call("messages.history", ["conversation_id": conversation, "before": -1])) == "bad_request")
        #expect(errorCode(try c.call("messages.history", ["conversation_id": conversation, "before": 0])) == "bad_request")
        let all = try #require(ok(try c.call("messages.history", ["conversation_id": conversation, "before": max])))
        #expect((all["messages"] as? [[String: Any]])?.compactMap { $0["seq"] as? Int } == [2, 1])
        let none = try #require(ok(try c.call("messages.history", ["conversation_id": conversation, "before": 1])))
        #expect((none["messages"] as? [[String: Any]])?.isEmpty == true)
        for limit in [min, -1, 0, max] {
            #expect(errorCode(try c.call("messages.history", ["conversation_id": conversation, "limit": limit])) == "bad_request")
        }
        // Beyond Int64: a decoding error, not a crash.
        #expect(errorCode(try c.callRaw(#"{"id":9001,"op":"messages.history","conversation_id":\#(conversation),"before":9223372036854775808}"#, id: 9001)) == "bad_request")
        #expect(errorCode(try c.callRaw(#"{"id":9002,"op":"messages.history","conversation_id":\#(conversation),"limit":1e300}"#, id: 9002)) == "bad_request")
        #expect(errorCode(try c.callRaw(#"{"id":9003,"op":"messages.history","conversation_id":-9223372036854775809}"#, id: 9003)) == "bad_request")
        for id in [min, -1, 0, max] {
            #expect(errorCode(try c.call("messages.history", ["conversation_id": id, "before": max])) == "not_member")
            #expect(errorCode(try c.call("messages.history", ["conversation_id": id, "before": 1])) == "not_member")
        }

        // Read markers.
        #expect(ok(try c.call("conversations.read", ["conversation_id": conversation, "seq": max]))?["read_seq"] as? Int == 2)
        #expect(errorCode(try c.call("conversations.read", ["conversation_id": conversation, "seq": min])) == "bad_request")
        #expect(errorCode(try c.call("conversations.read", ["conversation_id": min, "seq": max])) == "not_member")

        // Sync: extreme cursors and keys.
        let synced = try #require(ok(try c.call("sync", ["since": [String(conversation): max, String(Int64.min): 0, String(Int64.max): max]])))
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
            #expect(errorCode(try c.call("groups.add", ["conversation_id": conversation, "user_id": id])) == "bad_request")
            #expect(errorCode(try c.call("groups.leave", ["conversation_id": id])) == "not_member")
            #expect(errorCode(try c.call("conversations.direct", ["user_id": id])) == "not_friends")
            #expect(errorCode(try c.call("friends.request", ["user_id": id])) == "not_found")
            #expect(errorCode(try c.call("friends.accept", ["request_id": id])) == "not_found")
            #expect(errorCode(try c.call("friends.remove", ["user_id": id])) == "not_friends")
            #expect(errorCode(try c.call("profile.get", ["user_id": id])) == "not_found")
            #expect(errorCode(try c.call("sessions.revoke", ["session_id": id])) == "not_found")
            #expect(errorCode(try c.call("messages.send", ["conversation_id": conversation, "voice_id": id])) == "not_found")
        }

        // Still up, on this connection and a new one.
        #expect(ok(try c.call("ping")) != nil)
        let fresh = try reconnect(port, bob)
        #expect(ok(try fresh.call("ping")) != nil)
    }
}
