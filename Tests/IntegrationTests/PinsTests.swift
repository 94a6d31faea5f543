//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardProtocol
import SwitchboardServer
import SwitchboardStore
import Testing

/// The message ids of a `conversations.pins` reply, in order.
private func pinnedIds(_ reply: [String: Any]) -> [Int] {
    ((ok(reply)?["pins"] as? [[String: Any]]) ?? []).compactMap { ($0["message"] as? [String: Any])?["id"] as? Int }
}

/// Issue 36's worked example over a real socket: `messages.pin`, `messages.unpin`, `conversations.pins` and their
/// events, decoded as the schema's types too.
@Suite("Pinned messages over the real protocol", .serialized)
struct PinsTests {
    @Test func membersPinListAndUnpinAndEveryMemberWhoSeesTheMessageHearsIt() throws {
        let (server, port, database) = try startProtocolServer()
        defer {
            stop(server)
            database.close()
        }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        let dan = try makeUser(port, "dan")
        let zed = try makeUser(port, "zed")
        for friend in [bob, cat, dan] { try befriend(ann, friend) }
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["name": "trip", "member_ids": [bob.id, cat.id]]))?[
                "conversation"] as? [String: Any])?["conversation_id"] as? Int)
        let address = try #require(
            ok(
                try bob.client.call(
                    "messages.send", ["conversation_id": group, "client_id": "p1", "text": "the address"]))?[
                    "message_id"] as? Int)
        // Dan joins after the address: he neither sees it nor hears of its pin.
        _ = try #require(ok(try ann.client.call("groups.add", ["conversation_id": group, "user_id": dan.id])))
        let hello = try #require(
            ok(try dan.client.call("messages.send", ["conversation_id": group, "text": "hello"]))?["message_id"] as? Int
        )

        // Cat pins: the reply is the pin; every member who sees the message hears it, Cat's own connection too.
        let pinned = try #require(ok(try cat.client.call("messages.pin", ["message_id": address])))
        #expect(pinned["conversation_id"] as? Int == group)
        let pin = try #require(pinned["pin"] as? [String: Any])
        #expect(pin["pinned_by"] as? Int == cat.id)
        #expect((pin["message"] as? [String: Any])?["text"] as? String == "the address")
        let pinnedAt = try #require(pin["pinned_at"] as? String)
        #expect(pinnedAt.wholeMatch(of: /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/) != nil)
        for client in [ann.client, bob.client, cat.client] {
            let event = try client.event("message.pinned")
            #expect(event["conversation_id"] as? Int == group)
            #expect((event["pin"] as? [String: Any])?["pinned_by"] as? Int == cat.id)
            // The schema's type decodes the frame the server sent.
            let data = try JSONSerialization.data(withJSONObject: event)
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            let typed = try decoder.decode(MessagePinnedEvent.self, from: data)
            #expect(typed.pin.message.id == address)
        }
        #expect(try dan.client.noEventBeforeBarrier("message.pinned"))
        #expect(try zed.client.noEventBeforeBarrier("message.pinned"))

        // Again: the stored pin, no event (idempotent: a resend after a lost reply is safe).
        let again = try #require(ok(try ann.client.call("messages.pin", ["message_id": address])))
        #expect((again["pin"] as? [String: Any])?["pinned_by"] as? Int == cat.id)
        #expect((again["pin"] as? [String: Any])?["pinned_at"] as? String == pinnedAt)
        #expect(try bob.client.noEventBeforeBarrier("message.pinned"))

        // The list: what each current member sees, latest pin first.
        #expect(ok(try dan.client.call("messages.pin", ["message_id": hello])) != nil)
        let annList = try ann.client.call("conversations.pins", ["conversation_id": group])
        #expect(pinnedIds(annList) == [hello, address])
        #expect(ok(annList)?["max_pins"] as? Int == 50)
        #expect(pinnedIds(try dan.client.call("conversations.pins", ["conversation_id": group])) == [hello])

        // Strangers learn nothing: the same answers as for ids that do not exist.
        let missing = try zed.client.call("messages.pin", ["message_id": 9_000_000_000])
        #expect(errorCode(missing) == "not_found")
        for reply in [
            try zed.client.call("messages.pin", ["message_id": address]),
            try dan.client.call("messages.pin", ["message_id": address]),
            try zed.client.call("messages.unpin", ["message_id": address]),
        ] {
            #expect(errorCode(reply) == "not_found")
            #expect(
                (reply["error"] as? [String: Any])?["message"] as? String
                    == (missing["error"] as? [String: Any])?["message"] as? String)
        }
        #expect(errorCode(try zed.client.call("conversations.pins", ["conversation_id": group])) == "not_member")
        #expect(
            errorCode(try zed.client.call("conversations.pins", ["conversation_id": 9_000_000_000])) == "not_member")

        // Unpin: every member who sees it hears it; again changes nothing and tells nobody.
        let unpinned = try #require(ok(try bob.client.call("messages.unpin", ["message_id": address])))
        #expect(unpinned["conversation_id"] as? Int == group)
        #expect(unpinned["message_id"] as? Int == address)
        for client in [ann.client, bob.client, cat.client] {
            let event = try client.event("message.unpinned")
            #expect(event["message_id"] as? Int == address)
            #expect(event["user_id"] as? Int == bob.id)
        }
        #expect(ok(try bob.client.call("messages.unpin", ["message_id": address])) != nil)
        #expect(try cat.client.noEventBeforeBarrier("message.unpinned"))
        #expect(pinnedIds(try cat.client.call("conversations.pins", ["conversation_id": group])) == [hello])

        // A pinned message deleted for everyone drops out of the list; it cannot be pinned; its tombstone says it.
        #expect(ok(try ann.client.call("messages.pin", ["message_id": address])) != nil)
        #expect(ok(try bob.client.call("messages.delete", ["message_id": address])) != nil)
        #expect(pinnedIds(try ann.client.call("conversations.pins", ["conversation_id": group])) == [hello])
        #expect(errorCode(try ann.client.call("messages.pin", ["message_id": address])) == "invalid_state")
        // System messages are not pinned.
        let history = try #require(
            ok(try ann.client.call("messages.history", ["conversation_id": group]))?["messages"] as? [[String: Any]])
        let system = try #require(history.first { $0["kind"] as? String == "system" }?["id"] as? Int)
        #expect(errorCode(try ann.client.call("messages.pin", ["message_id": system])) == "bad_request")
    }

    @Test func theLimitIsConfigurableAndALeaverLosesThePins() throws {
        let (server, port, database) = try startProtocolServer { $0.messaging.maxPinnedMessages = 1 }
        defer {
            stop(server)
            database.close()
        }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        try befriend(ann, bob)
        try befriend(ann, cat)
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id]]))?["conversation"]
                as? [String: Any])?["conversation_id"] as? Int)
        var ids: [Int] = []
        for text in ["one", "two"] {
            ids.append(
                try #require(
                    ok(try ann.client.call("messages.send", ["conversation_id": group, "text": text]))?["message_id"]
                        as? Int))
        }
        #expect(ok(try bob.client.call("messages.pin", ["message_id": ids[0]])) != nil)
        let full = try bob.client.call("messages.pin", ["message_id": ids[1]])
        #expect(errorCode(full) == "too_many")
        #expect(
            (full["error"] as? [String: Any])?["message"] as? String
                == "a conversation has at most 1 pinned messages")
        #expect(ok(try bob.client.call("conversations.pins", ["conversation_id": group]))?["max_pins"] as? Int == 1)
        // Cat leaves: no list, no pins (the pins are the current members').
        _ = try #require(ok(try cat.client.call("groups.leave", ["conversation_id": group])))
        #expect(errorCode(try cat.client.call("conversations.pins", ["conversation_id": group])) == "not_member")
        #expect(errorCode(try cat.client.call("messages.unpin", ["message_id": ids[0]])) == "not_member")
        // The pin stays for the others.
        #expect(pinnedIds(try ann.client.call("conversations.pins", ["conversation_id": group])) == [ids[0]])
    }

    @Test func aDeletedAccountsPinsStayWithoutTheirAuthorAndItsExportListsThem() throws {
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("sb-pins-\(UUID().uuidString)").path
        let (server, port, database) = try startProtocolServer { $0.account.exportDirectory = exports }
        defer {
            stop(server)
            database.close()
        }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        try befriend(ann, bob)
        try befriend(ann, cat)
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id]]))?["conversation"]
                as? [String: Any])?["conversation_id"] as? Int)
        let bobs = try #require(
            ok(try bob.client.call("messages.send", ["conversation_id": group, "text": "keep this"]))?["message_id"]
                as? Int)
        let anns = try #require(
            ok(try ann.client.call("messages.send", ["conversation_id": group, "text": "mine"]))?["message_id"] as? Int)
        // Ann pins Bob's message; Bob pins Ann's.
        #expect(ok(try ann.client.call("messages.pin", ["message_id": bobs])) != nil)
        #expect(ok(try bob.client.call("messages.pin", ["message_id": anns])) != nil)

        // Ann's export lists the pin she made.
        let id = try #require(
            (ok(try ann.client.call("account.export"))?["export"] as? [String: Any])?["export_id"] as? Int)
        #expect(
            (try ann.client.event("account.export_ready")["export"] as? [String: Any])?["state"] as? String == "ready")
        let download = try http(port, "GET", "/export/\(id)", token: ann.token)
        #expect(download.status == 200)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-pins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(download.body).write(to: folder.appendingPathComponent("export.tar.gz"))
        #expect(
            try runProcess(
                "/bin/tar", ["-xzf", folder.appendingPathComponent("export.tar.gz").path, "-C", folder.path]
            ).status == 0)
        let pinsFile = folder.appendingPathComponent("switchboard-export-\(id)/message_pins.json")
        let exported = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: pinsFile)) as? [[String: Any]])
        #expect(exported.count == 1)
        #expect(exported.first?["message_id"] as? Int == bobs)
        #expect(exported.first?["conversation_id"] as? Int == group)
        #expect(exported.first?["seq"] as? Int == 2)
        #expect(exported.first?["pinned_at"] is String)

        // Ann deletes her account: her pin stays, without its author; the pin of her own message goes with its
        // tombstone.
        #expect(ok(try ann.client.call("account.delete", ["password": ann.password])) != nil)
        let annId = Int64(ann.id)
        let finished = waitUntil(timeout: 30) {
            (try? database.pool.connectionForTests { db in
                try db.execute(
                    cached: "SELECT count(*) FROM account_deletions WHERE user_id = $1 AND finished_at IS NOT NULL",
                    [.int(annId)]
                ).first?.string(0)
            }) == "1"
        }
        #expect(finished)
        let pins = try #require(
            ok(try bob.client.call("conversations.pins", ["conversation_id": group]))?["pins"] as? [[String: Any]])
        #expect(pins.count == 1)
        #expect((pins.first?["message"] as? [String: Any])?["id"] as? Int == bobs)
        #expect(pins.first?["pinned_by"] is NSNull)
    }
}
