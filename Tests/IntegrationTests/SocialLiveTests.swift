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
import SwitchboardProtocol
import SwitchboardStore
import Testing

@testable import SwitchboardServer

// Live pages and social notifications over real sockets. Posts, follows, likes and blocks are written with SQL
// through the store here (the way the posts and graph ops write them: seq from `post_clock`, counts exact) and told
// to `services.social.publish`, exactly as those ops do after their commit.

/// Runs `body` in a transaction on a connection of the test database (blocking the test's thread).
@discardableResult
private func sql<T: Sendable>(_ database: DatabaseRuntime, _ body: @escaping @Sendable (PostgresConnection) throws -> T)
    throws
    -> T
{
    let done = DispatchSemaphore(value: 0)
    let box = Unchecked(NSMutableArray())
    database.pool.withConnection(
        on: DispatchQueue(label: "test.sql"), { db in try db.transaction { db in try body(db) } },
        completion: { r in
            switch r {
            case .success(let value): box.value.add(Unchecked(value))
            case .failure(let error): box.value.add("\(error)")
            }
            done.signal()
        })
    done.wait()
    if let value = box.value.firstObject as? Unchecked<T> { return value.value }
    throw TestSQLError(description: "\(box.value.firstObject ?? "no result")")
}

/// The social world of one test: the server, its database, and the writes the graph and posts ops make.
private struct World {
    let server: HubServer
    let port: Int
    let database: DatabaseRuntime
    /// A user of its own with a post and a connection on that user's page, to wait for the live pages (`liveBarrier`).
    var probe: (user: TestUser, post: Int64)?
    var social: SocialLive { server.services!.social }

    /// Waits until every change published so far has been routed to this node's connections; then a ping on a
    /// connection is a barrier for its live events (`ProtocolClient.eventsBeforeBarrier`). `SocialLive` resolves the
    /// changes in the order published, a batch at a time, and routes each batch (one `LocalOutbox.post`) on its
    /// queue before it resolves the next. The probe's post counts, published now, reach only the probe's connection;
    /// they are published twice, the second time once the first arrived: the second is in a later batch than
    /// anything published before the first, so when it arrives the routing of those is over (each loop's part handed
    /// over, not only the probe's). The ops publish their changes before they answer.
    func liveBarrier() throws {
        let probe = try #require(probe)
        for _ in 0..<2 {
            social.publish(.counts(postId: probe.post))
            _ = try probe.user.client.event("post.counts") { $0["post_id"] as? Int == Int(probe.post) }
        }
    }

    /// A user with a handle (unique in the shared database).
    func user(_ name: String, protected: Bool = false, handle: Bool = true) throws -> TestUser {
        let u = try makeUser(port, name)
        let id = Int64(u.id)
        let h = "\(name)_\(UInt32.random(in: 0...UInt32.max))"
        try sql(database) { db in
            try db.query(
                "UPDATE users SET handle = $2, protected = $3 WHERE id = $1",
                [.int(id), handle ? .text(h) : nil, .bool(protected)])
        }
        return u
    }

    func follow(_ a: TestUser, _ b: TestUser, active: Bool = true) throws {
        let (x, y) = (Int64(a.id), Int64(b.id))
        let notification: Int64? = try sql(database) { db in
            if active {
                if !(try db.query(
                    "INSERT INTO follows (follower_id, followee_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING 1",
                    [.int(x), .int(y)]
                ).isEmpty) {
                    try db.query("UPDATE users SET following_count = following_count + 1 WHERE id = $1", [.int(x)])
                    try db.query("UPDATE users SET follower_count = follower_count + 1 WHERE id = $1", [.int(y)])
                    return try SocialNotifications.record(db, userId: y, kind: .follow, actorId: x, postId: nil)
                }
            } else if !(try db.query(
                "DELETE FROM follows WHERE follower_id = $1 AND followee_id = $2 RETURNING 1", [.int(x), .int(y)]
            ).isEmpty) {
                try db.query("UPDATE users SET following_count = following_count - 1 WHERE id = $1", [.int(x)])
                try db.query("UPDATE users SET follower_count = follower_count - 1 WHERE id = $1", [.int(y)])
            }
            return nil
        }
        social.publish(.followChanged(followerId: x, followeeId: y, active: active))
        if let notification { social.publish(.notified(userId: y, notificationId: notification)) }
    }

    func block(_ a: TestUser, _ b: TestUser) throws {
        try follow(a, b, active: false)
        try follow(b, a, active: false)
        let (x, y) = (Int64(a.id), Int64(b.id))
        try sql(database) { db in
            try db.query("INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)", [.int(x), .int(y)])
        }
        social.publish(.blockChanged(blockerId: x, blockedId: y, blocked: true))
    }

    func mute(_ a: TestUser, _ b: TestUser) throws {
        let (x, y) = (Int64(a.id), Int64(b.id))
        try sql(database) { db in
            try db.query("INSERT INTO mutes (muter_id, muted_id) VALUES ($1, $2)", [.int(x), .int(y)])
        }
        social.publish(.muteChanged(muterId: x, mutedId: y, muted: true))
    }

    /// A post (a reply with `replyTo`, a repost with `repostOf`); its id.
    @discardableResult
    func post(_ author: TestUser, _ text: String, replyTo: Int64? = nil, repostOf: Int64? = nil) throws -> Int64 {
        let a = Int64(author.id)
        let (id, notified): (Int64, (Int64, Int64)?) = try sql(database) { db in
            var notified: (Int64, Int64)?
            let id = try db.query(
                """
                INSERT INTO posts (seq, author_id, text, reply_to, reply_to_user, thread_root, repost_of)
                SELECT -nextval('posts_id_seq'), $1, $2, $3::bigint,
                       (SELECT author_id FROM posts WHERE id = $3::bigint),
                       (SELECT coalesce(thread_root, id) FROM posts WHERE id = $3::bigint), $4::bigint
                RETURNING id
                """, [.int(a), .text(text), replyTo.map { .int($0) }, repostOf.map { .int($0) }]
            ).decodeFirst(Int64.self)!
            try db.query("UPDATE users SET post_count = post_count + 1 WHERE id = $1", [.int(a)])
            if let replyTo {
                try db.query("UPDATE posts SET reply_count = reply_count + 1 WHERE id = $1", [.int(replyTo)])
                if let parentAuthor = try db.query("SELECT author_id FROM posts WHERE id = $1", [.int(replyTo)])
                    .decodeFirst(Int64.self)
                {
                    if let n = try SocialNotifications.record(
                        db, userId: parentAuthor, kind: .reply, actorId: a, postId: id)
                    {
                        notified = (parentAuthor, n)
                    }
                }
            }
            // The clock last, as the posts ops do.
            try db.query(
                "WITH c AS (UPDATE post_clock SET seq = seq + 1 RETURNING seq) "
                    + "UPDATE posts SET seq = c.seq FROM c WHERE id = $1",
                [.int(id)])
            return (id, notified)
        }
        social.publish(.postCreated(postId: id))
        if let (user, n) = notified { social.publish(.notified(userId: user, notificationId: n)) }
        if let replyTo { social.publish(.counts(postId: replyTo)) }
        return id
    }

    func delete(_ postId: Int64) throws {
        let (author, root, seq): (Int64, Int64?, Int64) = try sql(database) { db in
            let row = try db.query(
                """
                WITH c AS (UPDATE post_clock SET seq = seq + 1 RETURNING seq)
                UPDATE posts SET deleted_at = now(), text = '', deleted_seq = c.seq FROM c
                WHERE id = $1 RETURNING author_id, thread_root, deleted_seq
                """, [.int(postId)]
            ).first!
            return (try row.decode(column: 0), try row.decode(column: 1), try row.decode(column: 2))
        }
        social.publish(.postDeleted(postId: postId, authorId: author, threadRoot: root, seq: seq))
    }

    /// A like (with its notification); the notification's id if one was recorded.
    @discardableResult
    func like(_ user: TestUser, _ postId: Int64) throws -> Int64? {
        let u = Int64(user.id)
        let recorded: (Int64?, Int64) = try sql(database) { db in
            try db.query("INSERT INTO likes (post_id, user_id) VALUES ($1, $2)", [.int(postId), .int(u)])
            let author = try db.query(
                "UPDATE posts SET like_count = like_count + 1 WHERE id = $1 RETURNING author_id", [.int(postId)]
            )
            .decodeFirst(Int64.self)!
            return (try SocialNotifications.record(db, userId: author, kind: .like, actorId: u, postId: postId), author)
        }
        social.publish(.counts(postId: postId))
        if let id = recorded.0 { social.publish(.notified(userId: recorded.1, notificationId: id)) }
        return recorded.0
    }

    /// Photos of `owner`'s attached to `postId`, in order (as `post.create` with `photo_ids` stores them); their ids.
    func photos(_ owner: TestUser, on postId: Int64, count: Int) throws -> [Int64] {
        let o = Int64(owner.id)
        return try sql(database) { db in
            try (0..<count).map { position in
                let sha = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
                let id = try db.query(
                    """
                    INSERT INTO photos (owner_id, sha256, format, width, height, color, has_alpha)
                    VALUES ($1, decode($2, 'hex'), 'jpeg', 640, 480, '#a3b1c2', false) RETURNING id
                    """, [.int(o), .text(sha)]
                ).decodeFirst(Int64.self)!
                try db.query(
                    "INSERT INTO post_photos (post_id, position, photo_id) VALUES ($1, $2, $3)",
                    [.int(postId), .int(Int64(position)), .int(id)])
                return id
            }
        }
    }

    func seq(_ postId: Int64) throws -> Int64 {
        try sql(database) { db in
            try db.query("SELECT seq FROM posts WHERE id = $1", [.int(postId)]).decodeFirst(Int64.self)!
        }
    }
}

private func startWorld(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> World {
    let (server, port, database) = try startProtocolServer(adjust)
    var world = World(server: server, port: port, database: database)
    let probe = try world.user("probe")
    #expect(ok(try probe.client.subscribe(["user:\(probe.id)"])) != nil)
    world.probe = (probe, try world.post(probe, "a probe of the live pages"))
    return world
}

extension ProtocolClient {
    /// Subscribes; the reply's `ok`, or nil (then `error` has the code).
    func subscribe(_ streams: [String], since: Int64? = nil) throws -> [String: Any] {
        var params: [String: Any] = ["streams": streams]
        if let since { params["since"] = since }
        return try call("live.subscribe", params)
    }

    /// The first event named `name` for which `matching` holds (earlier ones of that name are dropped).
    func event(_ name: String, matching: ([String: Any]) -> Bool) throws -> [String: Any] {
        while true {
            let e = try event(name)
            if matching(e) { return e }
        }
    }
}

private func postId(_ event: [String: Any]) -> Int64? {
    ((event["post"] as? [String: Any])?["post_id"] as? Int).map(Int64.init)
}

@Suite("Social live pages and notifications over the real protocol", .serialized)
struct SocialLiveTests {
    @Test func subscriptionsAreAuthorizedLikeThePagesAndBounded() throws {
        let w = try startWorld { $0.live.maxSubscriptions = 3 }
        defer { stop(w.server); w.database.close() }
        let ann = try w.user("ann")
        let bob = try w.user("bob", protected: true)
        let zed = try w.user("zed")
        let dan = try w.user("dan", handle: false)
        let bobPost = try w.post(bob, "for my followers")
        try w.block(zed, ann)

        #expect(errorCode(try ann.client.subscribe(["user:\(bob.id)"])) == "forbidden")
        #expect(errorCode(try ann.client.subscribe(["thread:\(bobPost)"])) == "not_found")
        #expect(errorCode(try ann.client.subscribe(["user:\(zed.id)"])) == "not_found")
        #expect(errorCode(try zed.client.subscribe(["user:\(ann.id)"])) == "not_found")
        #expect(errorCode(try ann.client.subscribe(["user:\(dan.id)"])) == "not_found")
        #expect(errorCode(try ann.client.subscribe(["user:900000000000"])) == "not_found")
        #expect(errorCode(try ann.client.subscribe(["thread:900000000000"])) == "not_found")
        for bad in ["bogus", "user:abc", "user:", "thread:-1", "Home"] {
            #expect(errorCode(try ann.client.subscribe([bad])) == "bad_request", "\(bad)")
        }
        #expect(errorCode(try ann.client.call("live.subscribe", ["streams": [String]()])) == "bad_request")
        #expect(errorCode(try ann.client.subscribe(["home"], since: -1)) == "bad_request")
        #expect(errorCode(try ann.client.call("live.unsubscribe", ["streams": ["nope"]])) == "bad_request")
        // Nothing was subscribed by the refusals.
        #expect(ok(try ann.client.call("live.unsubscribe", ["streams": ["home"]]))?["subscribed"] as? [String] == [])

        // Once an active follower, the protected page and thread are open.
        try w.follow(ann, bob)
        let opened = try #require(ok(try ann.client.subscribe(["user:\(bob.id)", "thread:\(bobPost)"])))
        #expect(Set(opened["subscribed"] as? [String] ?? []) == ["user:\(bob.id)", "thread:\(bobPost)"])
        // Three at most per connection; the same stream again is no new one.
        #expect(
            Set(ok(try ann.client.subscribe(["home", "home", "user:\(bob.id)"]))?["subscribed"] as? [String] ?? [])
                .count == 3)
        let over = try ann.client.subscribe(["notifications"])
        #expect(errorCode(over) == "too_many")
        let left = try #require(ok(try ann.client.call("live.unsubscribe", ["streams": ["home"]])))
        #expect(Set(left["subscribed"] as? [String] ?? []) == ["user:\(bob.id)", "thread:\(bobPost)"])
        #expect(ok(try ann.client.subscribe(["notifications"])) != nil)
        // Another connection of the same user has its own limit.
        let ann2 = try secondDevice(w.port, ann, "ann-2")
        #expect(ok(try ann2.subscribe(["home", "notifications", "user:\(ann.id)"])) != nil)
    }

    @Test func everyChangeReachesExactlyTheRightConnectionsOnce() throws {
        let w = try startWorld()
        defer { stop(w.server); w.database.close() }
        let ann = try w.user("ann")
        let bob = try w.user("bob")
        let cat = try w.user("cat")
        let dan = try w.user("dan")
        let eve = try w.user("eve")
        let fay = try w.user("fay")
        let gus = try w.user("gus", protected: true)
        try w.follow(bob, ann)
        try w.follow(eve, ann)
        try w.mute(eve, ann)
        try w.follow(bob, gus)
        try w.follow(cat, dan)
        // The follows' notifications routed before Ann subscribes (told later only by the unread count): waited for,
        // not left to the resolver being quicker than the subscriptions (it was not always, with a probe's post too).
        try w.liveBarrier()
        let bob2 = try secondDevice(w.port, bob, "bob-2")

        // Bob: home and ann's page (one delivery per post); bob's second device: home; cat: ann's page only; dan:
        // home without following ann; eve: home, muting ann; ann: her own home and notifications.
        #expect(ok(try bob.client.subscribe(["home", "user:\(ann.id)"])) != nil)
        #expect(ok(try bob2.subscribe(["home"])) != nil)
        #expect(ok(try cat.client.subscribe(["user:\(ann.id)"])) != nil)
        #expect(ok(try dan.client.subscribe(["home"])) != nil)
        #expect(ok(try eve.client.subscribe(["home"])) != nil)
        #expect(ok(try ann.client.subscribe(["home", "notifications"])) != nil)
        let first = try w.post(ann, "hello followers #live")
        #expect(ok(try fay.client.subscribe(["thread:\(first)"])) != nil)

        for client in [bob.client, bob2, cat.client, ann.client] {
            let e = try client.event("post.new")
            #expect(postId(e) == first)
            #expect((e["post"] as? [String: Any])?["liked"] as? Bool == false)
        }
        try w.liveBarrier()
        #expect(try bob.client.allBeforeBarrier("post.new").isEmpty, "one delivery however many streams match")
        #expect(try dan.client.noEventBeforeBarrier("post.new"))
        #expect(try eve.client.noEventBeforeBarrier("post.new"))

        // A reply by cat: the thread's subscriber and ann's home? No: ann does not follow cat. Bob follows ann, not
        // cat: not on bob's home. Cat's own page subscribers: none.
        let reply = try w.post(cat, "a reply", replyTo: first)
        #expect(postId(try fay.client.event("post.new")) == reply)
        try w.liveBarrier()
        #expect(try ann.client.noEventBeforeBarrier("post.new"))
        #expect(try bob.client.noEventBeforeBarrier("post.new"))
        // The reply changed the root's counts: ann's page, the thread and the home of ann's followers.
        for client in [bob.client, bob2, cat.client, fay.client, ann.client] {
            let counts = try client.event("post.counts")
            #expect(counts["post_id"] as? Int == Int(first))
            #expect(counts["reply_count"] as? Int == 1)
        }
        // Ann is told of the reply.
        let note = try ann.client.event("notification")
        #expect((note["notification"] as? [String: Any])?["kind"] as? String == "reply")
        #expect((note["notification"] as? [String: Any])?["post_id"] as? Int == Int(reply))
        #expect(note["unread"] as? Int == 3, "two follows and the reply")

        // A protected author's post: only its followers (bob) and itself.
        try w.post(gus, "followers only")
        let gusPost = try bob.client.event("post.new")
        #expect(((gusPost["post"] as? [String: Any])?["author"] as? [String: Any])?["protected"] as? Bool == true)
        _ = try bob2.event("post.new")
        try w.liveBarrier()
        #expect(try dan.client.noEventBeforeBarrier("post.new"))
        #expect(try cat.client.noEventBeforeBarrier("post.new"))

        // A like: counts to the same connections as the post, a notification to ann.
        try w.like(dan, first)
        for client in [bob.client, bob2, cat.client, fay.client, ann.client] {
            #expect(try client.event("post.counts")["like_count"] as? Int == 1)
        }
        #expect((try ann.client.event("notification")["notification"] as? [String: Any])?["kind"] as? String == "like")

        // A follow changes profile counts: ann's page subscribers and ann's own home.
        try w.follow(dan, ann)
        for client in [bob.client, cat.client, ann.client] {
            let p = try client.event("profile.counts") {
                $0["user_id"] as? Int == ann.id && $0["followers"] as? Int == 3
            }
            #expect(p["following"] as? Int == 0)
        }
        #expect(try dan.client.event("profile.counts")["user_id"] as? Int == dan.id)
        // Dan now follows ann: his home gets her posts.
        let second = try w.post(ann, "second")
        #expect(postId(try dan.client.event("post.new")) == second)
        for client in [bob.client, bob2, cat.client, ann.client] {
            #expect(postId(try client.event("post.new")) == second)
        }

        // A block: ann blocks cat; cat's subscription to ann's page is gone at once.
        try w.block(ann, cat)
        let third = try w.post(ann, "not for cat")
        #expect(postId(try bob.client.event("post.new")) == third)
        try w.liveBarrier()
        #expect(try cat.client.allBeforeBarrier("post.new").isEmpty)

        // A deletion: the same connections as the post.
        try w.delete(second)
        for client in [bob.client, bob2, dan.client, ann.client] {
            let d = try client.event("post.deleted")
            #expect(d["post_id"] as? Int == Int(second))
            #expect(d["author_id"] as? Int == ann.id)
            #expect(d["thread_root"] is NSNull)
        }
        try w.liveBarrier()
        #expect(try cat.client.noEventBeforeBarrier("post.deleted"))

        // A repost of a muted user's post by a followee does not reach the muter's home.
        try w.follow(eve, bob)
        let repost = try w.post(bob, "", repostOf: third)
        #expect(postId(try bob2.event("post.new") { postId($0) == repost }) == repost)
        try w.liveBarrier()
        #expect(try eve.client.noEventBeforeBarrier("post.new"))
    }

    @Test func aResumeGetsWhatWasMissedOnceAndBeyondTheBoundAsksForAResync() throws {
        let w = try startWorld { $0.live.replayMax = 5 }
        defer { stop(w.server); w.database.close() }
        let ann = try w.user("ann")
        let bob = try w.user("bob")
        try w.follow(bob, ann)
        let early = try w.post(ann, "early")
        let subscribed = try #require(ok(try bob.client.subscribe(["home"])))
        let seen = try #require((subscribed["seq"] as? Int).map(Int64.init))
        #expect(seen >= (try w.seq(early)))

        // Bob's connection drops; ann posts three, deletes the early one.
        bob.client.socket.shutdownBoth()
        let missed = [try w.post(ann, "m1"), try w.post(ann, "m2"), try w.post(ann, "m3")]
        try w.delete(early)
        try w.delete(missed[1])

        let back = try reconnect(w.port, bob)
        let resumed = try #require(ok(try back.subscribe(["home"], since: seen)))
        #expect(resumed["resync_required"] as? Bool == false)
        let posts = (resumed["posts"] as? [[String: Any]] ?? []).compactMap { ($0["post_id"] as? Int).map(Int64.init) }
        #expect(posts == [missed[0], missed[2]])
        let deleted = (resumed["deleted"] as? [[String: Any]] ?? []).compactMap {
            ($0["post_id"] as? Int).map(Int64.init)
        }
        #expect(deleted == [early, missed[1]])
        let clock = try #require((resumed["seq"] as? Int).map(Int64.init))
        // Live from then on, exactly once.
        let after = try w.post(ann, "after")
        #expect(postId(try back.event("post.new")) == after)
        try w.liveBarrier()
        #expect(try back.allBeforeBarrier("post.new").isEmpty)

        // Posts and a subscription racing: posts published while the resume is read come once, live or replayed.
        let third = try secondDevice(w.port, bob, "bob-3")
        let racing = try (0..<3).map { i in try w.post(ann, "race \(i)") }
        let raced = try #require(ok(try third.subscribe(["home"], since: clock)))
        var got = (raced["posts"] as? [[String: Any]] ?? []).compactMap { ($0["post_id"] as? Int).map(Int64.init) }
        // Published before the barrier: by its end each racing post was replayed or delivered live (or both, which
        // the comparison below would show).
        try w.liveBarrier()
        got += try third.allBeforeBarrier("post.new").compactMap(postId)
        #expect(got.sorted() == ([after] + racing).sorted())

        // Over the bound: resync_required, nothing replayed.
        third.socket.shutdownBoth()
        let latest = try #require((raced["seq"] as? Int).map(Int64.init))
        for i in 0..<6 { try w.post(ann, "burst \(i)") }
        let fourth = try secondDevice(w.port, bob, "bob-4")
        let overflow = try #require(ok(try fourth.subscribe(["home"], since: latest)))
        #expect(overflow["resync_required"] as? Bool == true)
        #expect((overflow["posts"] as? [Any])?.isEmpty == true)
        #expect((overflow["deleted"] as? [Any])?.isEmpty == true)
    }

    @Test func countsAreConflatedOnAConnectionThatDoesNotRead() throws {
        let w = try startWorld {
            $0.messaging.conflateAboveBytes = 0
            $0.maxOutboundBytes = 256 << 20
        }
        defer { stop(w.server); w.database.close() }
        let ann = try w.user("ann")
        let bob = try w.user("bob")
        let cat = try w.user("cat")
        let target = try w.post(ann, "count me")
        let slow = try ProtocolClient(port: w.port)
        _ = try #require(ok(try slow.call("authenticate", ["token": bob.token])))
        #expect(ok(try slow.subscribe(["user:\(ann.id)"])) != nil)
        #expect(ok(try cat.client.subscribe(["user:\(ann.id)"])) != nil)
        // Fill bob's connection: big posts it does not read.
        let big = String(repeating: "x", count: 20000)
        for _ in 0..<300 {
            try w.post(ann, big)
        }
        // Cat's 300 post.new, all routed by the barrier, are dropped (not a check).
        try w.liveBarrier()
        _ = try cat.client.allBeforeBarrier("post.new")
        // 30 count changes, one at a time (cat, who reads, sees each).
        for n in 1...30 {
            try sql(w.database) { db in
                try db.query("UPDATE posts SET like_count = $2 WHERE id = $1", [.int(target), .int(Int64(n))])
            }
            w.social.publish(.counts(postId: target))
            while true {
                let e = try cat.client.event("post.counts")
                if e["like_count"] as? Int == n { break }
            }
        }
        // Bob reads everything now: every post, and the counts of the post fewer times than they changed, the last
        // being the latest.
        slow.setTimeout(10)
        var posts = 0
        var counts: [Int] = []
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, posts < 300 || counts.last != 30 {
            let e = try slow.next()
            switch e["ev"] as? String {
            case "post.new": if ((e["post"] as? [String: Any])?["text"] as? String)?.count == big.count { posts += 1 }
            case "post.counts": counts.append(e["like_count"] as? Int ?? -1)
            default: break
            }
        }
        #expect(posts == 300)
        #expect(counts.last == 30)
        #expect(counts.count < 30, "\(counts)")
        #expect(counts == counts.sorted())
    }

    @Test func notificationsAreGroupedCountedAndReadAcrossDevices() throws {
        let w = try startWorld()
        defer { stop(w.server); w.database.close() }
        let ann = try w.user("ann")
        let ann2 = try secondDevice(w.port, ann, "ann-2")
        let bob = try w.user("bob")
        let cat = try w.user("cat")
        let dan = try w.user("dan")
        let eve = try w.user("eve")
        let gus = try w.user("gus")
        #expect(ok(try ann.client.subscribe(["notifications"])) != nil)
        #expect(ok(try ann2.subscribe(["notifications"])) != nil)
        let p1 = try w.post(ann, "like me")
        let p2 = try w.post(ann, "and me")
        try w.like(bob, p1)
        try w.like(cat, p1)
        try w.follow(eve, ann)
        try w.like(dan, p1)
        try w.follow(gus, ann)
        let reply = try w.post(cat, "a reply", replyTo: p2)
        try w.like(bob, p2)
        // Both devices got every notification live (7); then ann mutes gus, whose follow is no longer counted.
        // (Barrier: all seven were published before it; more than seven would show.)
        try w.liveBarrier()
        for client in [ann.client, ann2] {
            var received = try client.allBeforeBarrier("notification")
            while received.count < 7 { received.append(try client.event("notification")) }
            #expect(received.count == 7)
            #expect(
                received.compactMap { ($0["notification"] as? [String: Any])?["kind"] as? String }.sorted()
                    == ["follow", "follow", "like", "like", "like", "like", "reply"])
        }
        // Recorded once per (kind, actor, post); never by oneself, a blocked user or a muted one.
        let (annId, bobId, gusId) = (Int64(ann.id), Int64(bob.id), Int64(gus.id))
        let again: Int64?? = try? sql(w.database) { db in
            try SocialNotifications.record(db, userId: annId, kind: .like, actorId: bobId, postId: p1)
        }
        #expect(again == .some(nil))
        try w.mute(ann, gus)
        let fromSelf: Int64? = try sql(w.database) { db in
            try SocialNotifications.record(db, userId: annId, kind: .like, actorId: annId, postId: p1)
        }
        let fromMuted: Int64? = try sql(w.database) { db in
            try SocialNotifications.record(db, userId: annId, kind: .mention, actorId: gusId, postId: p2)
        }
        #expect(fromSelf == nil)
        #expect(fromMuted == nil)

        #expect(ok(try ann.client.call("notifications.unread"))?["unread"] as? Int == 6)

        // Grouped: newest first. like p2 (bob), reply (cat), follows (eve; gus muted), likes of p1 (dan, cat, bob).
        let page = try #require(ok(try ann.client.call("notifications.list")))
        let groups = page["groups"] as? [[String: Any]] ?? []
        #expect(groups.map { $0["kind"] as? String ?? "" } == ["like", "reply", "like", "follow"])
        #expect(((groups[0]["post"] as? [String: Any])?["post_id"] as? Int) == Int(p2))
        #expect(((groups[1]["post"] as? [String: Any])?["post_id"] as? Int) == Int(reply))
        let likes = groups[2]
        #expect(likes["actor_count"] as? Int == 3)
        #expect(
            (likes["actors"] as? [[String: Any]] ?? []).map { $0["user_id"] as? Int ?? 0 } == [dan.id, cat.id, bob.id])
        #expect(((likes["post"] as? [String: Any])?["post_id"] as? Int) == Int(p1))
        #expect(groups[3]["actor_count"] as? Int == 1)
        #expect(groups[3]["post"] is NSNull)
        #expect(groups.allSatisfy { $0["unread"] as? Bool == true })
        #expect(page["unread"] as? Int == 6)
        #expect(page["next_before"] is NSNull)

        // Pages: two groups, then the rest.
        let first = try #require(ok(try ann.client.call("notifications.list", ["limit": 2])))
        #expect((first["groups"] as? [Any])?.count == 2)
        let before = try #require(first["next_before"] as? Int)
        let rest = try #require(ok(try ann.client.call("notifications.list", ["limit": 2, "before": before])))
        #expect((rest["groups"] as? [[String: Any]] ?? []).map { $0["kind"] as? String ?? "" } == ["like", "follow"])
        #expect(errorCode(try ann.client.call("notifications.list", ["limit": 51])) == "bad_request")

        // Read on one device: the other is told; the marker only moves forward.
        let likeP2 = try #require(groups[0]["newest_id"] as? Int)
        let partial = try #require(ok(try ann.client.call("notifications.read", ["up_to": likeP2 - 1])))
        #expect(partial["unread"] as? Int == 1)
        let told = try ann2.event("notifications.read")
        #expect(told["unread"] as? Int == 1)
        #expect(told["read_id"] as? Int == likeP2 - 1)
        _ = try ann.client.event("notifications.read")
        #expect(ok(try ann2.call("notifications.read", ["up_to": 1]))?["unread"] as? Int == 1)
        #expect(ok(try ann2.call("notifications.read"))?["unread"] as? Int == 0)
        #expect(
            try ann.client.event("notifications.read") { $0["unread"] as? Int == 0 }["read_id"] as? Int ?? 0 >= likeP2)
        #expect(ok(try ann.client.call("notifications.unread"))?["unread"] as? Int == 0)
        let read = try #require(ok(try ann.client.call("notifications.list")))
        #expect((read["groups"] as? [[String: Any]] ?? []).allSatisfy { $0["unread"] as? Bool == false })
        // Another user sees none of ann's.
        #expect((ok(try bob.client.call("notifications.list"))?["groups"] as? [Any])?.count == 0)
    }

    /// The live barrier must see what was published before it (otherwise every "nothing arrived" checked with it
    /// would pass whatever was routed): each of Ann's posts is among what her follower's home got by the barrier.
    @Test func theLiveBarrierSeesAPostPublishedBeforeIt() throws {
        let w = try startWorld()
        defer { stop(w.server); w.database.close() }
        let ann = try w.user("ann")
        let bob = try w.user("bob")
        try w.follow(bob, ann)
        #expect(ok(try bob.client.subscribe(["home"])) != nil)
        for round in 0..<20 {
            let id = try w.post(ann, "round \(round)")
            try w.liveBarrier()
            #expect(try bob.client.allBeforeBarrier("post.new").compactMap(postId) == [id], "round \(round)")
        }
    }

    @Test func theGraphAndPostsOpsDriveLivePages() throws {
        let w = try startWorld()
        defer { stop(w.server); w.database.close() }
        func register(_ name: String) throws -> TestUser {
            let client = try ProtocolClient(port: w.port)
            let phone = freshPhone()
            let password = "\(name) secret pass 42"
            let handle = "\(name)_\(UInt32.random(in: 0...UInt32.max))"
            let r = try #require(
                ok(
                    try client.call(
                        "register",
                        [
                            "phone": phone, "password": password, "display_name": name, "device": "\(name)-1",
                            "handle": handle,
                        ])))
            return TestUser(
                id: try #require(r["user_id"] as? Int), phone: phone, password: password,
                token: try #require(r["session_token"] as? String),
                client: client)
        }
        let ann = try register("ann")
        let bob = try register("bob")
        let cat = try register("cat")
        let dan = try register("dan")
        #expect(ok(try ann.client.call("profile.update", ["protected": true])) != nil)
        #expect(ok(try ann.client.subscribe(["notifications", "home"])) != nil)

        // A follow request to a protected account: notified live; the page is refused until approved.
        #expect(ok(try bob.client.call("follow", ["user_id": ann.id]))?["state"] as? String == "pending")
        let request = try ann.client.event("notification")
        #expect((request["notification"] as? [String: Any])?["kind"] as? String == "follow_request")
        #expect(errorCode(try bob.client.subscribe(["user:\(ann.id)"])) == "forbidden")
        #expect(ok(try ann.client.call("follow.approve", ["user_id": bob.id])) != nil)
        #expect(ok(try bob.client.subscribe(["home", "user:\(ann.id)"])) != nil)
        #expect(ok(try cat.client.subscribe(["home"])) != nil)

        // post.create: to the approved follower once, not to a stranger.
        let post = try #require(
            (ok(try ann.client.call("post.create", ["text": "only for @\("bob") and followers #vip"]))?["post"]
                as? [String: Any]))
        let created = try #require((post["post_id"] as? Int).map(Int64.init))
        #expect(
            try bob.client.event("post.new") { _ in true }["post"].flatMap {
                ($0 as? [String: Any])?["post_id"] as? Int
            } == Int(created))
        try w.liveBarrier()
        #expect(try bob.client.allBeforeBarrier("post.new").isEmpty)
        #expect(try cat.client.noEventBeforeBarrier("post.new"))
        #expect(postId(try ann.client.event("post.new")) == created)

        // post.like: counts to the page and home subscribers, a notification to the author.
        #expect(ok(try bob.client.call("post.like", ["post_id": created])) != nil)
        #expect(try bob.client.event("post.counts")["like_count"] as? Int == 1)
        #expect(
            (try ann.client.event("notification") {
                ($0["notification"] as? [String: Any])?["kind"] as? String == "like"
            })["unread"] as? Int == 2)

        // A repost by bob of a public post reaches bob's followers; a mute stops it.
        #expect(ok(try cat.client.call("follow", ["user_id": bob.id]))?["state"] as? String == "active")
        #expect(ok(try dan.client.call("follow", ["user_id": bob.id])) != nil)
        #expect(ok(try dan.client.subscribe(["home"])) != nil)
        let original = try #require(
            (ok(try dan.client.call("post.create", ["text": "public"]))?["post"] as? [String: Any])?["post_id"] as? Int)
        let repost = try #require(
            (ok(try bob.client.call("post.repost", ["post_id": original]))?["post"] as? [String: Any])?["post_id"]
                as? Int)
        #expect(try cat.client.event("post.new") { postId($0) == Int64(repost) }["post"] != nil)
        #expect(ok(try cat.client.call("mute", ["user_id": bob.id])) != nil)
        _ = try #require(ok(try bob.client.call("post.create", ["text": "muted by cat"])))
        #expect(
            try dan.client.event("post.new") { (($0["post"] as? [String: Any])?["text"] as? String) == "muted by cat" }[
                "post"] != nil)
        try w.liveBarrier()
        #expect(try cat.client.allBeforeBarrier("post.new").isEmpty)

        // A block ends bob's page and home of ann at once; deleting reaches the remaining subscribers.
        #expect(ok(try ann.client.call("block", ["user_id": bob.id])) != nil)
        let hidden = try #require(
            (ok(try ann.client.call("post.create", ["text": "not for bob"]))?["post"] as? [String: Any])?["post_id"]
                as? Int)
        #expect(postId(try ann.client.event("post.new") { postId($0) == Int64(hidden) }) == Int64(hidden))
        try w.liveBarrier()
        let fromAnn = try bob.client.allBeforeBarrier("post.new").filter {
            (($0["post"] as? [String: Any])?["author"] as? [String: Any])?["user_id"] as? Int == ann.id
        }
        #expect(fromAnn.isEmpty)
        #expect(ok(try ann.client.call("post.delete", ["post_id": hidden])) != nil)
        #expect(try ann.client.event("post.deleted")["post_id"] as? Int == hidden)
        try w.liveBarrier()
        #expect(try bob.client.noEventBeforeBarrier("post.deleted"))
    }

    /// `photos.delete` of a photo in a post: the post's live viewers (the audience of `post.counts`) get
    /// `post.photos` with the photos left, in order; a stranger's home does not.
    @Test func aDeletedPhotoLeavesThePostOnEveryLivePage() throws {
        let w = try startWorld()
        defer { stop(w.server); w.database.close() }
        let ann = try w.user("ann")
        let bob = try w.user("bob")
        let cat = try w.user("cat")
        let dan = try w.user("dan")
        try w.follow(bob, ann)
        let post = try w.post(ann, "three photos")
        let photos = try w.photos(ann, on: post, count: 3)
        #expect(ok(try bob.client.subscribe(["home"])) != nil)
        #expect(ok(try cat.client.subscribe(["thread:\(post)"])) != nil)
        #expect(ok(try dan.client.subscribe(["home"])) != nil)
        #expect(ok(try ann.client.subscribe(["user:\(ann.id)"])) != nil)

        #expect(ok(try ann.client.call("photos.delete", ["photo_id": photos[1]])) != nil)
        for client in [bob.client, cat.client, ann.client] {
            let e = try client.event("post.photos")
            #expect(e["post_id"] as? Int == Int(post))
            #expect(
                (e["photos"] as? [[String: Any]])?.compactMap { $0["photo_id"] as? Int }
                    == [photos[0], photos[2]].map { Int($0) })
        }
        try w.liveBarrier()
        #expect(try dan.client.noEventBeforeBarrier("post.photos"))
        // The last ones: an empty list.
        #expect(ok(try ann.client.call("photos.delete", ["photo_id": photos[0]])) != nil)
        #expect(ok(try ann.client.call("photos.delete", ["photo_id": photos[2]])) != nil)
        let last = try bob.client.event("post.photos") { ($0["photos"] as? [Any])?.isEmpty == true }
        #expect(last["post_id"] as? Int == Int(post))
    }

    /// A repost shows the original in the homes of the reposter's followers: its counts reach their live home pages
    /// too (not a muter's of the original's author), from the newest reposters only (`--live-counts-reposters`).
    @Test func countsReachTheHomesOfTheNewestRepostersFollowers() throws {
        let w = try startWorld { $0.live.countsReposters = 1 }
        defer { stop(w.server); w.database.close() }
        let ann = try w.user("ann")
        let bob = try w.user("bob")
        let fay = try w.user("fay")
        let cat = try w.user("cat")
        let dan = try w.user("dan")
        let eve = try w.user("eve")
        let gus = try w.user("gus")
        let original = try w.post(ann, "worth sharing")
        try w.follow(cat, fay)
        try w.follow(dan, fay)
        try w.mute(dan, ann)
        try w.follow(gus, bob)
        // Bob reposts first, fay last: with one reposter counted, fay's followers hear of it, bob's do not.
        try w.post(bob, "", repostOf: original)
        try w.post(fay, "", repostOf: original)
        for user in [cat, dan, eve, gus] { #expect(ok(try user.client.subscribe(["home"])) != nil) }

        try w.like(eve, original)
        let counts = try cat.client.event("post.counts") { $0["post_id"] as? Int == Int(original) }
        #expect(counts["like_count"] as? Int == 1)
        try w.liveBarrier()
        for user in [dan, eve, gus] { #expect(try user.client.noEventBeforeBarrier("post.counts"), "\(user.id)") }
    }
}
