//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol
import SwitchboardServer
import Testing

/// `reactions` as `[emoji: (count, mine)]`.
private func counts(_ value: Any?) -> [String: [String: AnyHashable]] {
    var out: [String: [String: AnyHashable]] = [:]
    for entry in (value as? [[String: Any]]) ?? [] {
        guard let emoji = entry["emoji"] as? String else { continue }
        var fields: [String: AnyHashable] = ["count": entry["count"] as? Int ?? -1]
        if let mine = entry["mine"] as? Bool { fields["mine"] = mine }
        out[emoji] = fields
    }
    return out
}

@Suite("Message reactions over the real protocol", .serialized)
struct ReactionsTests {
    @Test func setReplaceRemoveCountsInHistoryAndLiveEvents() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let ack = try #require(
            ok(try ann.client.call("messages.send", ["user_id": bob.id, "client_id": "r1", "text": "react to me"])))
        let conversation = try #require(ack["conversation_id"] as? Int)
        let messageId = try #require(ack["message_id"] as? Int)
        let plain = try #require(
            ok(
                try ann.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "r2", "text": "not me"])))
        _ = try bob.client.messages(count: 2)

        // Set: the reply has the counts with `mine`; the other member gets the event (without `mine`).
        let set = try #require(ok(try bob.client.call("reactions.set", ["message_id": messageId, "emoji": "👍"])))
        #expect(set["conversation_id"] as? Int == conversation)
        #expect(set["message_id"] as? Int == messageId)
        #expect(counts(set["reactions"]) == ["👍": ["count": 1, "mine": true]])
        let event = try ann.client.event("message.reaction")
        #expect(event["conversation_id"] as? Int == conversation)
        #expect(event["message_id"] as? Int == messageId)
        #expect(event["user_id"] as? Int == bob.id)
        #expect(event["emoji"] as? String == "👍")
        #expect(counts(event["reactions"]) == ["👍": ["count": 1]])
        _ = try bob.client.event("message.reaction")

        // Replace: one reaction per user per message.
        let replaced = try #require(ok(try bob.client.call("reactions.set", ["message_id": messageId, "emoji": "❤️"])))
        #expect(counts(replaced["reactions"]) == ["❤️": ["count": 1, "mine": true]])
        #expect(try ann.client.event("message.reaction")["emoji"] as? String == "❤️")
        _ = try bob.client.event("message.reaction")
        let both = try #require(ok(try ann.client.call("reactions.set", ["message_id": messageId, "emoji": "❤️"])))
        #expect(counts(both["reactions"]) == ["❤️": ["count": 2, "mine": true]])
        #expect(counts(try bob.client.event("message.reaction")["reactions"]) == ["❤️": ["count": 2]])
        _ = try ann.client.event("message.reaction")

        // History: counts on the message that has reactions, no field on the one without.
        let history = try #require(
            ok(try bob.client.call("messages.history", ["conversation_id": conversation]))?["messages"]
                as? [[String: Any]])
        let reacted = try #require(history.first { $0["id"] as? Int == messageId })
        #expect(counts(reacted["reactions"]) == ["❤️": ["count": 2, "mine": true]])
        let other = try #require(history.first { $0["id"] as? Int == plain["message_id"] as? Int })
        #expect(other["reactions"] == nil)

        // Remove: `active` false; the event's emoji is null.
        let removed = try #require(
            ok(try bob.client.call("reactions.set", ["message_id": messageId, "emoji": "❤️", "active": false])))
        #expect(counts(removed["reactions"]) == ["❤️": ["count": 1, "mine": false]])
        let removal = try ann.client.event("message.reaction")
        #expect(removal["emoji"] is NSNull)
        #expect(removal["user_id"] as? Int == bob.id)
        #expect(counts(removal["reactions"]) == ["❤️": ["count": 1]])
        _ = try bob.client.event("message.reaction")
        // Removing again changes nothing: same answer, no event.
        let again = try #require(
            ok(try bob.client.call("reactions.set", ["message_id": messageId, "emoji": "x", "active": false])))
        #expect(counts(again["reactions"]) == ["❤️": ["count": 1, "mine": false]])
        // Barrier: the request pushes its event before it answers.
        #expect(try ann.client.noEventBeforeBarrier("message.reaction"))

        // The sync catch-up carries the counts too.
        let bob2 = try reconnect(port, bob)
        _ = try #require(ok(try bob2.call("sync", ["since": [String(conversation): 0]])))
        let caughtUp = try bob2.messages(count: 2)
        let first = try #require(caughtUp.first { $0["id"] as? Int == messageId })
        #expect(counts(first["reactions"]) == ["❤️": ["count": 1, "mine": false]])
    }

    @Test func strangersAndLateMembersGetTheSameNotFoundAsMissingIds() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        let dan = try makeUser(port, "dan")
        let zed = try makeUser(port, "zed")
        try befriend(ann, bob)
        try befriend(ann, cat)
        try befriend(ann, dan)
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["name": "g", "member_ids": [bob.id, cat.id]]))?["conversation"]
                as? [String: Any])?[
                    "conversation_id"] as? Int)
        let early = try #require(
            ok(try ann.client.call("messages.send", ["conversation_id": group, "text": "before dan"]))?["message_id"]
                as? Int)
        _ = try #require(ok(try ann.client.call("groups.add", ["conversation_id": group, "user_id": dan.id])))
        let late = try #require(
            ok(try ann.client.call("messages.send", ["conversation_id": group, "text": "after dan"]))?["message_id"]
                as? Int)

        let missing = try zed.client.call("reactions.set", ["message_id": 9_000_000_000, "emoji": "👍"])
        let stranger = try zed.client.call("reactions.set", ["message_id": early, "emoji": "👍"])
        let beforeJoining = try dan.client.call("reactions.set", ["message_id": early, "emoji": "👍"])
        #expect(errorCode(missing) == "not_found")
        for reply in [stranger, beforeJoining] {
            #expect(errorCode(reply) == "not_found")
            #expect(
                (reply["error"] as? [String: Any])?["message"] as? String == (missing["error"] as? [String: Any])?[
                    "message"] as? String)
        }
        // Dan sees the later message; everyone in the group gets the event, Zed nothing.
        #expect(ok(try dan.client.call("reactions.set", ["message_id": late, "emoji": "🎉"])) != nil)
        for client in [ann.client, bob.client, cat.client] {
            #expect(try client.event("message.reaction")["user_id"] as? Int == dan.id)
        }
        #expect(try zed.client.noEventBeforeBarrier("message.reaction"))  // pushed before Dan's reply

        // The emoji: a short one-line string.
        for emoji in ["", String(repeating: "👍", count: 9), "a\u{7}", String(repeating: "x", count: 65), "   "] {
            #expect(
                errorCode(try dan.client.call("reactions.set", ["message_id": late, "emoji": emoji])) == "bad_request",
                "\(emoji.debugDescription)")
        }
        #expect(errorCode(try dan.client.call("reactions.set", ["message_id": late])) == "bad_request")

        // A deleted message takes no reactions.
        _ = try #require(ok(try ann.client.call("messages.delete", ["message_id": late])))
        #expect(errorCode(try bob.client.call("reactions.set", ["message_id": late, "emoji": "👍"])) == "invalid_state")
    }
}

// Named so that it runs with the client library suites (`--filter ClientLibraryTests`), apart from the blocking
// socket tests.
@Suite("Message reactions through the client library", .serialized)
struct ReactionsClientLibraryTests {
    @Test func reactAndTheEventWithTheSchemasTypes() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let annEvents = EventLog(ann)
        _ = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        try await befriend(ann, bob, bobUser)
        let ack = try await ann.sendText("react", to: .user(bobUser.id))
        let result = try await bob.react(to: ack.messageId, emoji: "👍")
        #expect(result.reactions == [ReactionCount(emoji: "👍", count: 1, mine: true)])
        #expect(
            await annEvents.wait { all in
                all.contains {
                    if case .messageReaction(let r) = $0 {
                        return r.messageId == ack.messageId && r.userId == bobUser.id && r.emoji == "👍"
                            && r.reactions == [ReactionCount(emoji: "👍", count: 1, mine: nil)]
                    }
                    return false
                }
            })
        // The generic send with the op's own types.
        let page = try await ann.send(Ops.MessagesHistory.self, .init(conversationId: ack.conversationId))
        #expect(page.messages.first?.reactions == [ReactionCount(emoji: "👍", count: 1, mine: false)])
        let removed = try await bob.send(
            Ops.ReactionsSet.self, .init(messageId: ack.messageId, emoji: "👍", active: false))
        #expect(removed.reactions.isEmpty)
        await ann.close()
        await bob.close()
    }
}
