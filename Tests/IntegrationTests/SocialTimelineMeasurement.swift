//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardServer
import SwitchboardStore
import Testing

/// The home timeline's measurement of docs/social.md ("Timelines: storage and ordering"), by hand only:
/// `SWITCHBOARD_SOCIAL_MEASURE=1 swift test --filter SocialTimelineMeasurement`. Builds a modest data set in a database
/// of its own (2,000 users following 200 each, 100,000 posts of which 10% replies, made with `generate_series`, the
/// counters and the post clock set to match), then times `timeline.home` pages for a viewer following 200 of them:
/// in the process (the page's transaction on a pooled connection: server-side) and over a loopback WebSocket (the
/// round trip). It asserts no speed; it prints the figures.
@Suite(
    "Social timeline measurement", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["SWITCHBOARD_SOCIAL_MEASURE"] != nil))
struct SocialTimelineMeasurement {
    static let users = 2000
    static let followees = 200
    static let posts = 100_000

    @Test func homePagesOnAGeneratedDataSet() throws {
        let (setupServer, _, setup) = try startProtocolServer()
        try? runSQL(setup, "DROP DATABASE IF EXISTS sb_social_measure")
        try runSQL(setup, "CREATE DATABASE sb_social_measure")
        stop(setupServer)
        setup.close()
        let base = TestDatabase.shared.url
        let url =
            base.contains("dbname=")
            ? base.replacingOccurrences(of: "dbname=postgres", with: "dbname=sb_social_measure")
            : base + " dbname=sb_social_measure"
        let (server, port, database) = try startProtocolServer {
            $0.databaseURL = url
            $0.databasePoolSize = 4
            $0.posts.postBurst = 10_000
        }
        defer { stop(server); database.close() }

        let viewer = try makeUser(port, "viewer")
        let started = Date()
        try runSQL(
            database,
            """
            CREATE TEMP TABLE IF NOT EXISTS m (n INT PRIMARY KEY, id BIGINT);
            WITH u AS (
              INSERT INTO users (phone, password_hash, display_name, handle)
              SELECT '+1999' || lpad(g::text, 7, '0'), 'x', 'measured ' || g, 'm_' || g
              FROM generate_series(1, \(Self.users)) g RETURNING id, handle)
            INSERT INTO m SELECT substr(handle, 3)::int, id FROM u;
            INSERT INTO follows (follower_id, followee_id)
              SELECT a.id, b.id FROM m a CROSS JOIN generate_series(1, \(Self.followees)) k
              JOIN m b ON b.n = ((a.n + k * 9) % \(Self.users)) + 1;
            INSERT INTO follows (follower_id, followee_id) SELECT \(viewer.id), id FROM m WHERE n % 10 = 0;
            UPDATE users SET handle = 'viewer_measured' WHERE id = \(viewer.id);
            INSERT INTO posts (id, seq, author_id, text, reply_to, reply_to_user, thread_root, created_at)
              SELECT g, g, a.id, 'generated post number ' || g,
                     CASE WHEN g % 10 = 0 AND g > 200 THEN g - 1 - (g * 31 % 100) END,
                     CASE WHEN g % 10 = 0 AND g > 200
                       THEN (SELECT id FROM m WHERE n = ((g - 1 - (g * 31 % 100)) * 7919 % \(Self.users)) + 1) END,
                     CASE WHEN g % 10 = 0 AND g > 200 THEN g - 1 - (g * 31 % 100) END,
                     now() - (\(Self.posts) - g) * interval '1 second'
              FROM generate_series(1, \(Self.posts)) g JOIN m a ON a.n = (g * 7919 % \(Self.users)) + 1;
            SELECT setval('posts_id_seq', \(Self.posts));
            UPDATE post_clock SET seq = \(Self.posts);
            UPDATE users u SET post_count = c.n
              FROM (SELECT author_id, count(*) AS n FROM posts GROUP BY author_id) c WHERE u.id = c.author_id;
            UPDATE users u SET following_count = c.n
              FROM (SELECT follower_id, count(*) AS n FROM follows GROUP BY follower_id) c WHERE u.id = c.follower_id;
            UPDATE users u SET follower_count = c.n
              FROM (SELECT followee_id, count(*) AS n FROM follows GROUP BY followee_id) c WHERE u.id = c.followee_id;
            ANALYZE;
            """)
        print("measure: data set built in \(String(format: "%.1f", Date().timeIntervalSince(started))) s")

        // Server-side: the page's transaction on a pooled connection, timed around it.
        func serverSide(_ cursor: TimelineRepository.Cursor, runs: Int) -> [Double] {
            let viewerId = Int64(viewer.id)
            let times = Unchecked(NSMutableArray())
            for _ in 0..<runs {
                let done = DispatchSemaphore(value: 0)
                database.pool.withConnection(
                    on: DispatchQueue(label: "measure"),
                    { db -> Double in
                        let t0 = DispatchTime.now().uptimeNanoseconds
                        _ = try db.transaction { db in
                            try TimelineRepository.home(db, viewer: viewerId, cursor: cursor, limit: 20)
                        }
                        return Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6
                    },
                    completion: { r in
                        if case .success(let ms) = r { times.value.add(NSNumber(value: ms)) }
                        done.signal()
                    })
                done.wait()
            }
            return (times.value as? [NSNumber] ?? []).map(\.doubleValue)
        }
        func loopback(_ params: [String: Any], runs: Int) throws -> [Double] {
            var out: [Double] = []
            for _ in 0..<runs {
                let t0 = DispatchTime.now().uptimeNanoseconds
                let reply = try viewer.client.call("timeline.home", params)
                out.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
                #expect(ok(reply) != nil)
            }
            return out
        }
        func summary(_ name: String, _ ms: [Double]) {
            let s = ms.sorted()
            guard !s.isEmpty else { return print("measure: \(name): no samples") }
            func q(_ p: Double) -> Double { s[min(s.count - 1, Int(Double(s.count) * p))] }
            print(
                String(
                    format: "measure: %@: n=%d p50=%.2f ms p99=%.2f ms max=%.2f ms", name, s.count, q(0.5), q(0.99),
                    s.last!))
        }
        _ = serverSide(.before(nil), runs: 20)  // warm the caches and the statement cache
        summary("home first page, server-side", serverSide(.before(nil), runs: 300))
        summary("home page before seq 50,000, server-side", serverSide(.before(50_000), runs: 300))
        summary("home page after seq 99,000, server-side", serverSide(.after(99_000), runs: 300))
        _ = try loopback([:], runs: 20)
        summary("home first page, loopback round trip", try loopback([:], runs: 300))
        summary("home page before seq 50,000, loopback round trip", try loopback(["before": 50_000], runs: 300))
        var acks: [Double] = []
        for i in 0..<200 {
            let t0 = DispatchTime.now().uptimeNanoseconds
            #expect(ok(try viewer.client.call("post.create", ["text": "measured \(i)"])) != nil)
            acks.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
        }
        summary("post.create acknowledgement, loopback round trip", acks)
        let page = try #require(ok(try viewer.client.call("timeline.home")))
        print("measure: first page holds \((page["posts"] as? [Any])?.count ?? 0) posts")
    }
}
