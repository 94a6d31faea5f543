//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// The value of the sample `series` (a name with its labels, as `/metrics` writes it), or nil when absent.
private func sample(_ text: String, _ series: String) -> Double? {
    for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1))
    }
    return nil
}

/// The server's `/metrics` text.
private func scrape(_ port: Int) throws -> String {
    String(decoding: try http(port, "GET", "/metrics").body, as: UTF8.self)
}

/// Issue 36, item 5: `/metrics` publishes the database pool's queue (callers waiting, connections in use, the wait
/// for a connection, `overloaded` refusals) and the message writers' (backlog, writes per batch, commit time), and
/// they move with requests.
@Suite("Pool and writer metrics on /metrics", .serialized)
struct QueueMetricsEndpointTests {
    @Test func thePoolAndTheWritersArePublishedAndMove() throws {
        // One connection and one waiter: a burst of reads is partly refused (`overloaded`).
        let (server, port, database) = try startProtocolServer {
            $0.databasePoolSize = 1
            $0.databaseMaxWaiters = 1
        }
        defer { stop(server); database.close() }
        let before = try scrape(port)
        #expect(sample(before, "switchboard_database_pool_size") == 1)
        for series in [
            "switchboard_database_pool_in_use", "switchboard_database_pool_waiters{queue=\"bounded\"}",
            "switchboard_database_pool_waiters{queue=\"urgent\"}", "switchboard_database_pool_overloaded_total",
            "switchboard_message_writer_backlog{writer=\"0\"}", "switchboard_message_writer_backlog{writer=\"1\"}",
            "switchboard_message_batch_writes_count", "switchboard_message_commit_seconds_count",
        ] {
            #expect(sample(before, series) != nil, "\(series) missing")
        }
        let leasesBefore = sample(before, "switchboard_database_pool_wait_seconds_count{queue=\"bounded\"}") ?? 0

        let ann = try makeUser(port, "Ann")
        let bob = try makeUser(port, "Bob")
        try befriend(ann, bob)
        let direct = try #require(
            ok(try ann.client.call("conversations.direct", ["user_id": bob.id]))?["conversation"] as? [String: Any])
        let conversation = try #require(direct["conversation_id"] as? Int)
        for n in 0..<5 {
            _ = try #require(
                ok(try ann.client.call("messages.send", ["conversation_id": conversation, "text": "m\(n)"])))
        }
        #expect(ok(try bob.client.call("messages.history", ["conversation_id": conversation])) != nil)

        let after = try scrape(port)
        #expect((sample(after, "switchboard_database_pool_wait_seconds_count{queue=\"bounded\"}") ?? 0) > leasesBefore)
        #expect((sample(after, "switchboard_message_batch_writes_count") ?? 0) >= 1)
        #expect((sample(after, "switchboard_message_batch_writes_sum") ?? 0) >= 5)
        #expect((sample(after, "switchboard_message_commit_seconds_count") ?? 0) >= 1)
        #expect((sample(after, "switchboard_message_commit_seconds_sum") ?? 0) > 0)
        #expect(after.contains("switchboard_message_commit_seconds_bucket{le=\"0.001\"}"))
        #expect(after.contains("switchboard_database_pool_wait_seconds_bucket{queue=\"urgent\",le=\"0.0001\"}"))

        // A burst of reads pipelined on one connection (up to 64 in flight): beyond the one running and the one
        // waiting, they are refused, and counted. Repeated in the unlikely case that a burst never overlapped.
        var refused = 0.0
        var id = 10_000
        for _ in 0..<20 where refused == 0 {
            var frames: [UInt8] = []
            for _ in 0..<48 {
                id += 1
                let body: [String: Any] = ["id": id, "op": "messages.history", "conversation_id": conversation]
                frames += clientFrame(opcode: 1, payload: Array(try JSONSerialization.data(withJSONObject: body)))
            }
            try bob.client.socket.send(frames)
            var answered = 0
            while answered < 48 {
                if try bob.client.next()["re"] != nil { answered += 1 }
            }
            refused = sample(try scrape(port), "switchboard_database_pool_overloaded_total") ?? 0
        }
        #expect(refused > 0)
        // Nobody waits once the burst is answered (the health check may hold the connection for a moment).
        #expect(
            waitUntil {
                let text = (try? scrape(port)) ?? ""
                return sample(text, "switchboard_database_pool_waiters{queue=\"bounded\"}") == 0
                    && sample(text, "switchboard_message_writer_backlog{writer=\"0\"}") == 0
            })
    }
}
