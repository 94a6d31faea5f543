//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import SwitchboardStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Server instances in this process on their own ports, sharing the test database (no Redis: no delivery
/// between them; results are read from acknowledgements, `messages.history` and `sync`).
func startCluster(_ count: Int) throws -> [(server: HubServer, port: Int, database: DatabaseRuntime)] {
    try (0..<count).map { _ in
        let (server, port, database) = try startProtocolServer()
        return (server, port, database)
    }
}

func stop(_ cluster: [(server: HubServer, port: Int, database: DatabaseRuntime)]) {
    for node in cluster {
        stop(node.server)
        node.database.close()
    }
}

/// Every message of a conversation visible to `client`, by seq (history pages of 100, newest first).
func allHistory(_ client: ProtocolClient, _ conversation: Int) throws -> [Int: [String: Any]] {
    var bySeq: [Int: [String: Any]] = [:]
    var before: Int?
    for _ in 0..<100 {
        var params: [String: Any] = ["conversation_id": conversation, "limit": 100]
        if let before { params["before"] = before }
        let page = try #require(ok(try client.call("messages.history", params))?["messages"] as? [[String: Any]])
        guard !page.isEmpty else { break }
        for m in page { if let seq = m["seq"] as? Int { bySeq[seq] = m } }
        before = page.compactMap { $0["seq"] as? Int }.min()
    }
    return bySeq
}

/// What one concurrent job got: acknowledgements (or the messages of group changes) by key, and failures.
final class JobResults: @unchecked Sendable {
    // @unchecked Sendable: written only by the job's own thread, read after every job joined.
    var acks: [String: [String: Any]] = [:]
    var failures: [String] = []
}

/// Runs the jobs on threads of their own at once; returns when all are done.
func concurrently(_ jobs: [(JobResults) throws -> Void]) -> [JobResults] {
    let results = jobs.map { _ in JobResults() }
    let shared = Unchecked(jobs)
    DispatchQueue.concurrentPerform(iterations: jobs.count) { i in
        do { try shared.value[i](results[i]) } catch { results[i].failures.append("job \(i): \(error)") }
    }
    return results
}

/// Sends `count` texts with client ids `<keyPrefix>-<i>`, at most `window` unanswered; records each ack by key.
func sendWindowed(
    _ client: ProtocolClient, _ conversation: Int, keyPrefix: String, count: Int, window: Int = 16,
    into results: JobResults
) throws {
    var outstanding: [(id: Int, key: String)] = []
    func settle() throws {
        let (id, key) = outstanding.removeFirst()
        let reply = try client.reply(id)
        if let ack = ok(reply) { results.acks[key] = ack } else { results.failures.append("\(key): \(reply)") }
    }
    for i in 0..<count {
        let key = "\(keyPrefix)-\(i)"
        outstanding.append(
            (
                try client.send(
                    "messages.send", ["conversation_id": conversation, "client_id": key, "text": "m \(key)"]), key
            ))
        if outstanding.count >= window { try settle() }
    }
    while !outstanding.isEmpty { try settle() }
}

/// Messaging with several server processes on one database: seqs are allocated under the conversation's row
/// lock, so order, idempotency and membership hold whichever instance a request lands on.
@Suite("Messaging across server instances sharing one database", .serialized)
struct ClusterMessagingTests {
    @Test func concurrentSendsThroughThreeInstancesGetGaplessUniqueSeqs() throws {
        let cluster = try startCluster(3)
        defer { stop(cluster) }
        let ann = try makeUser(cluster[0].port, "ann")
        let bob = try makeUser(cluster[1].port, "bob")
        let cat = try makeUser(cluster[2].port, "cat")
        try befriend(ann, bob)
        try befriend(ann, cat)
        let created = try #require(
            ok(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id]]))?["conversation"]
                as? [String: Any])
        let group = try #require(created["conversation_id"] as? Int)

        // Each member sends 200 messages through its own instance at once, at most 16 unanswered each.
        let perUser = 200
        let results = concurrently(
            [ann, bob, cat].map { user in
                { results in
                    try sendWindowed(user.client, group, keyPrefix: "\(user.id)", count: perUser, into: results)
                }
            })
        let failures = results.flatMap(\.failures)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        let all = results.reduce(into: [String: [String: Any]]()) { $0.merge($1.acks) { x, _ in x } }
        #expect(all.count == 3 * perUser)
        let seqs = all.values.compactMap { $0["seq"] as? Int }
        #expect(seqs.count == 3 * perUser)
        #expect(Set(seqs) == Set(2...(1 + 3 * perUser)))  // seq 1 is the group's creation
        #expect(all.values.allSatisfy { $0["conversation_id"] as? Int == group })

        // Every acknowledgement is the stored message (read through an instance that sent none of them... and all).
        let stored = try allHistory(ann.client, group)
        #expect(stored.count == 1 + 3 * perUser)
        for (key, ack) in all {
            let seq = try #require(ack["seq"] as? Int)
            let m = try #require(stored[seq])
            #expect(m["id"] as? Int == ack["message_id"] as? Int)
            #expect(m["client_id"] as? String == key)
            #expect(m["text"] as? String == "m \(key)")
            #expect(m["ts"] as? String == ack["ts"] as? String)
        }
        // A new device's catch-up through another instance brings every seq once, in order.
        let bobElsewhere = try secondDevice(cluster[2].port, bob, "bob-2")
        let sync = try bobElsewhere.send("sync")
        let caughtUp = try bobElsewhere.messages(count: 1 + 3 * perUser, within: 30)
        _ = try #require(ok(try bobElsewhere.reply(sync)))
        #expect(caughtUp.compactMap { $0["seq"] as? Int } == Array(1...(1 + 3 * perUser)))
    }

    @Test func anIdempotentRetryThroughAnotherInstanceGetsTheOriginalAcknowledgement() throws {
        let cluster = try startCluster(2)
        defer { stop(cluster) }
        let ann = try makeUser(cluster[0].port, "ann")
        let bob = try makeUser(cluster[1].port, "bob")
        try befriend(ann, bob)
        let annB = try secondDevice(cluster[1].port, ann, "ann-b")
        let direct = try #require(
            (ok(try ann.client.call("conversations.direct", ["user_id": bob.id]))?["conversation"] as? [String: Any])?[
                "conversation_id"] as? Int)

        // One after the other: the retry through B finds the message stored through A.
        let first = try #require(
            ok(try ann.client.call("messages.send", ["conversation_id": direct, "client_id": "k0", "text": "once"])))
        let retry = try #require(
            ok(try annB.call("messages.send", ["conversation_id": direct, "client_id": "k0", "text": "once"])))
        for field in ["message_id", "seq", "ts"] {
            #expect("\(first[field] ?? "")" == "\(retry[field] ?? "")", "\(field)")
        }

        // At once, 20 times: the row lock orders the two; both get the one stored message.
        for k in 1...20 {
            let params: [String: Any] = ["conversation_id": direct, "client_id": "k\(k)", "text": "race \(k)"]
            let a = try ann.client.send("messages.send", params)
            let b = try annB.send("messages.send", params)
            let ackA = try #require(ok(try ann.client.reply(a)))
            let ackB = try #require(ok(try annB.reply(b)))
            for field in ["message_id", "seq", "ts"] {
                #expect("\(ackA[field] ?? "")" == "\(ackB[field] ?? "")", "k\(k) \(field)")
            }
        }
        let stored = try allHistory(bob.client, direct)
        #expect(stored.keys.sorted() == Array(1...21))
        #expect(Set(stored.values.compactMap { $0["client_id"] as? String }).count == 21)
    }

    @Test func membershipChangedThroughOneInstanceHoldsAtOnceOnAnother() throws {
        let cluster = try startCluster(2)
        defer { stop(cluster) }
        let (a, b) = (cluster[0].port, cluster[1].port)
        let ann = try makeUser(a, "ann")
        let bob = try makeUser(b, "bob")
        let cat = try makeUser(a, "cat")
        let dan = try makeUser(a, "dan")
        try befriend(ann, bob)
        try befriend(ann, cat)
        try befriend(ann, dan)
        let catB = try secondDevice(b, cat, "cat-b")
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["member_ids": [bob.id, dan.id]]))?["conversation"]
                as? [String: Any])?["conversation_id"] as? Int)
        // B caches the group (without Cat).
        _ = try #require(ok(try bob.client.call("messages.send", ["conversation_id": group, "text": "from B"])))
        #expect(
            errorCode(try catB.call("messages.send", ["conversation_id": group, "text": "not yet"])) == "not_member")
        #expect(errorCode(try catB.call("typing", ["conversation_id": group])) == "not_member")

        // Added through A: Cat types and sends through B at once (typing first: it checks B's cached state itself).
        _ = try #require(ok(try ann.client.call("groups.add", ["conversation_id": group, "user_id": cat.id])))
        _ = try #require(ok(try catB.call("typing", ["conversation_id": group])))
        let sent = try #require(ok(try catB.call("messages.send", ["conversation_id": group, "text": "hello from B"])))
        #expect(sent["seq"] as? Int == 4)

        // Left through A: refused through B at once; the others go on.
        _ = try #require(ok(try cat.client.call("groups.leave", ["conversation_id": group])))
        #expect(errorCode(try catB.call("typing", ["conversation_id": group, "active": false])) == "not_member")
        #expect(
            errorCode(try catB.call("messages.send", ["conversation_id": group, "text": "still here?"])) == "not_member"
        )
        #expect(errorCode(try catB.call("groups.rename", ["conversation_id": group, "name": "mine"])) == "not_member")
        let next = try #require(
            ok(try bob.client.call("messages.send", ["conversation_id": group, "text": "after Cat"])))
        #expect(next["seq"] as? Int == 6)

        // Added again through A (a second version change): B takes it too.
        _ = try #require(ok(try ann.client.call("groups.add", ["conversation_id": group, "user_id": cat.id])))
        _ = try #require(ok(try catB.call("messages.send", ["conversation_id": group, "text": "back"])))
        let stored = try allHistory(ann.client, group)
        #expect(stored.keys.sorted() == Array(1...8))
        #expect(stored[8]?["text"] as? String == "back")
    }

    @Test func aRenameThroughOneInstanceIsWhatAnotherShows() throws {
        let cluster = try startCluster(2)
        defer { stop(cluster) }
        let (a, b) = (cluster[0].port, cluster[1].port)
        let ann = try makeUser(a, "ann")
        let bob = try makeUser(b, "bob")
        let cat = try makeUser(a, "cat")
        try befriend(ann, bob)
        try befriend(ann, cat)
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["member_ids": [bob.id, cat.id]]))?["conversation"]
                as? [String: Any])?["conversation_id"] as? Int)
        _ = try #require(
            ok(try bob.client.call("messages.send", ["conversation_id": group, "text": "B caches the group"])))

        _ = try #require(ok(try ann.client.call("groups.rename", ["conversation_id": group, "name": "Lunch"])))
        let seen = try #require(
            ok(try bob.client.call("conversations.get", ["conversation_id": group]))?["conversation"] as? [String: Any])
        #expect(seen["name"] as? String == "Lunch")
        // B's next system message follows A's rename in seq and in content.
        let renamed = try #require(
            ok(try bob.client.call("groups.rename", ["conversation_id": group, "name": "Dinner"]))?["message"]
                as? [String: Any])
        #expect(renamed["seq"] as? Int == 4)
        let history = try allHistory(bob.client, group)
        #expect((history[3]?["system"] as? [String: Any])?["name"] as? String == "Lunch")
        #expect((history[4]?["system"] as? [String: Any])?["name"] as? String == "Dinner")
        let back = try #require(
            ok(try ann.client.call("conversations.get", ["conversation_id": group]))?["conversation"] as? [String: Any])
        #expect(back["name"] as? String == "Dinner")
    }

    @Test func membershipChangesRacingWithSendsOnTwoInstancesKeepSeqsGapless() throws {
        let cluster = try startCluster(2)
        defer { stop(cluster) }
        let (a, b) = (cluster[0].port, cluster[1].port)
        let ann = try makeUser(a, "ann")
        let bob = try makeUser(b, "bob")
        let dan = try makeUser(b, "dan")
        try befriend(ann, bob)
        try befriend(ann, dan)
        let annAdds = try secondDevice(a, ann, "ann-adds")
        let group = try #require(
            (ok(try ann.client.call("groups.create", ["member_ids": [bob.id, dan.id]]))?["conversation"]
                as? [String: Any])?["conversation_id"] as? Int)

        // Ann and Bob send through A and B while Dan leaves through B and is added again through A, 10 times.
        let perUser = 150, toggles = 10
        let results = concurrently([
            { try sendWindowed(ann.client, group, keyPrefix: "ann", count: perUser, into: $0) },
            { try sendWindowed(bob.client, group, keyPrefix: "bob", count: perUser, into: $0) },
            { results in
                for i in 0..<toggles {
                    for (key, client, op, params) in [
                        ("leave-\(i)", dan.client, "groups.leave", ["conversation_id": group]),
                        ("add-\(i)", annAdds, "groups.add", ["conversation_id": group, "user_id": dan.id]),
                    ] {
                        let reply = try client.call(op, params)
                        if let m = ok(reply)?["message"] as? [String: Any] {
                            results.acks[key] = ["message_id": m["id"] ?? 0, "seq": m["seq"] ?? 0]
                        } else {
                            results.failures.append("\(key): \(reply)")
                        }
                    }
                }
            },
        ])
        let failures = results.flatMap(\.failures)
        #expect(failures.isEmpty, "\(failures.prefix(5))")
        let all = results.reduce(into: [String: [String: Any]]()) { $0.merge($1.acks) { x, _ in x } }
        let total = 2 * perUser + 2 * toggles
        #expect(all.count == total)
        #expect(Set(all.values.compactMap { $0["seq"] as? Int }) == Set(2...(1 + total)))
        let stored = try allHistory(bob.client, group)
        #expect(stored.count == 1 + total)
        for (key, ack) in all {
            let seq = try #require(ack["seq"] as? Int)
            let m = try #require(stored[seq])
            #expect(m["id"] as? Int == ack["message_id"] as? Int, "\(key)")
        }
        // Dan is a member again (the last change): he sends through B, after everything.
        let last = try #require(
            ok(try dan.client.call("messages.send", ["conversation_id": group, "text": "back for good"])))
        #expect(last["seq"] as? Int == 2 + total)
    }
}
