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
import Testing

/// One integer from the test database.
private func sqlValue(_ database: DatabaseRuntime, _ sql: String) -> Int64 {
    let done = DispatchSemaphore(value: 0)
    let result = Unchecked(NSMutableArray())
    database.pool.withConnection(
        on: DispatchQueue(label: "test.sql"), { db in try db.query(sql).decodeFirst(Int64.self) ?? -1 },
        completion: { r in
            if case .success(let n) = r { result.value.add(NSNumber(value: n)) }
            done.signal()
        })
    done.wait()
    return (result.value.firstObject as? NSNumber)?.int64Value ?? -1
}

/// A registered user with a handle (set in SQL: handles are GRAPH's ops; these tests are about posts).
private func socialUser(_ port: Int, _ database: DatabaseRuntime, _ name: String) throws -> (TestUser, String) {
    let user = try makeUser(port, name)
    let handle = "\(name)_\(UInt32.random(in: 0...UInt32.max))"
    try runSQL(database, "UPDATE users SET handle = '\(handle)' WHERE id = \(user.id)")
    return (user, handle)
}

private func follow(_ database: DatabaseRuntime, _ follower: TestUser, _ followee: TestUser, state: String = "active")
    throws
{
    try runSQL(
        database,
        "INSERT INTO follows (follower_id, followee_id, state) VALUES (\(follower.id), \(followee.id), '\(state)')")
}

private func posts(_ reply: [String: Any]) -> [[String: Any]] { (ok(reply)?["posts"] as? [[String: Any]]) ?? [] }
private func ids(_ reply: [String: Any]) -> [Int] { posts(reply).compactMap { $0["post_id"] as? Int } }

private func post(_ client: ProtocolClient, _ text: String, replyTo: Int? = nil) throws -> [String: Any] {
    var params: [String: Any] = ["text": text]
    if let replyTo { params["reply_to"] = replyTo }
    return try #require(ok(try client.call("post.create", params))?["post"] as? [String: Any])
}

@Suite("Social posts and timelines over the real protocol", .serialized)
struct SocialPostsTests {
    @Test func createReplyThreadRepostLikeAndDelete() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let (ann, annHandle) = try socialUser(port, database, "ann")
        let (bob, bobHandle) = try socialUser(port, database, "bob")
        let (cat, _) = try socialUser(port, database, "cat")
        let admin = try makeUser(port, "admin")
        try runSQL(database, "UPDATE users SET role = 'admin' WHERE id = \(admin.id)")
        try follow(database, bob, ann)
        try follow(database, bob, cat)

        // A post: NFC text, mentions (not the e-mail address) and hashtags parsed and stored.
        let root = try post(ann.client, "  Hello @\(bobHandle), mail me at ann@example.com #Swift #cafe\u{301}  ")
        let rootId = try #require(root["post_id"] as? Int)
        #expect(root["text"] as? String == "Hello @\(bobHandle), mail me at ann@example.com #Swift #caf\u{E9}")
        #expect((root["author"] as? [String: Any])?["handle"] as? String == annHandle)
        #expect(root["hashtags"] as? [String] == ["café", "swift"])
        #expect((root["mentions"] as? [[String: Any]])?.map { $0["user_id"] as? Int } == [bob.id])
        #expect(root["reply_to"] is NSNull && root["repost_of"] is NSNull && root["thread_root"] is NSNull)
        #expect((root["seq"] as? Int ?? 0) > 0)

        // Replies: the thread root, the parent's author, the parent's reply count.
        let reply = try post(bob.client, "welcome", replyTo: rootId)
        let replyId = try #require(reply["post_id"] as? Int)
        #expect(reply["reply_to"] as? Int == rootId && reply["thread_root"] as? Int == rootId)
        #expect((reply["reply_to_user"] as? [String: Any])?["user_id"] as? Int == ann.id)
        let nested = try post(cat.client, "me too", replyTo: replyId)
        #expect(nested["thread_root"] as? Int == rootId)
        #expect(
            (ok(try ann.client.call("post.get", ["post_id": rootId]))?["post"] as? [String: Any])?["reply_count"]
                as? Int == 1)
        let thread = try #require(ok(try ann.client.call("timeline.thread", ["post_id": nested["post_id"] as! Int])))
        #expect((thread["ancestors"] as? [[String: Any]])?.map { $0["post_id"] as? Int } == [rootId, replyId])
        let rootThread = try #require(ok(try cat.client.call("timeline.thread", ["post_id": rootId])))
        #expect((rootThread["replies"] as? [[String: Any]])?.map { $0["post_id"] as? Int } == [replyId])
        #expect(rootThread["after"] is NSNull)

        // Likes: idempotent, a repost's id means its original, exact counts.
        let liked = try #require(ok(try bob.client.call("post.like", ["post_id": rootId])))
        #expect(liked["like_count"] as? Int == 1 && liked["liked"] as? Bool == true)
        #expect(ok(try bob.client.call("post.like", ["post_id": rootId]))?["like_count"] as? Int == 1)
        let repost = try #require(
            ok(try bob.client.call("post.repost", ["post_id": rootId]))?["post"] as? [String: Any])
        let repostId = try #require(repost["post_id"] as? Int)
        #expect(
            repost["text"] as? String == "" && (repost["repost_of"] as? [String: Any])?["post_id"] as? Int == rootId)
        #expect(
            repost["repost_count"] as? Int == 1 && repost["liked"] as? Bool == true
                && repost["reposted"] as? Bool == true)
        #expect(
            (ok(try bob.client.call("post.repost", ["post_id": repostId]))?["post"] as? [String: Any])?["post_id"]
                as? Int == repostId)
        let catLike = try #require(ok(try cat.client.call("post.like", ["post_id": repostId])))
        #expect(catLike["post_id"] as? Int == rootId && catLike["like_count"] as? Int == 2)
        let likers = try #require(
            ok(try ann.client.call("post.likers", ["post_id": rootId]))?["users"] as? [[String: Any]])
        #expect(likers.map { $0["user_id"] as? Int } == [cat.id, bob.id])
        #expect(ids(try cat.client.call("timeline.likes")) == [rootId])

        // Home: Bob sees Ann's post, his reply, Cat's reply to him and his repost; user pages with and without replies.
        let home = try bob.client.call("timeline.home")
        #expect(ids(home) == [repostId, nested["post_id"] as! Int, replyId, rootId])
        #expect(ids(try cat.client.call("timeline.hashtag", ["tag": "#SWIFT"])) == [rootId])
        #expect(ids(try bob.client.call("timeline.mentions")) == [rootId])
        #expect(sqlValue(database, "SELECT post_count FROM users WHERE id = \(bob.id)") == 2)
        // Notifications recorded in the writes' transactions: Ann's reply, two likes and a repost; Bob's mention and
        // reply.
        #expect(
            sqlValue(
                database,
                "SELECT count(*) FROM social_notifications"
                    + " WHERE user_id = \(ann.id) AND kind IN ('reply', 'like', 'repost')"
            ) == 4)
        #expect(
            sqlValue(
                database,
                "SELECT count(*) FROM social_notifications WHERE user_id = \(bob.id) AND kind IN ('mention', 'reply')")
                == 2)
        #expect(sqlValue(database, "SELECT count(*) FROM social_notifications WHERE user_id = \(cat.id)") == 0)

        // Deleting: only the author (or an administrator); the reposts go with it; the counts follow.
        #expect(errorCode(try bob.client.call("post.delete", ["post_id": rootId])) == "forbidden")
        #expect(ok(try ann.client.call("post.delete", ["post_id": rootId])) != nil)
        #expect(errorCode(try ann.client.call("post.get", ["post_id": rootId])) == "not_found")
        #expect(errorCode(try bob.client.call("post.get", ["post_id": repostId])) == "not_found")
        #expect(ids(try bob.client.call("timeline.home")) == [nested["post_id"] as! Int, replyId])
        #expect(ids(try bob.client.call("timeline.mentions")) == [])
        #expect(ids(try cat.client.call("timeline.hashtag", ["tag": "swift"])) == [])
        #expect(sqlValue(database, "SELECT post_count FROM users WHERE id = \(bob.id)") == 1)
        #expect(sqlValue(database, "SELECT post_count FROM users WHERE id = \(ann.id)") == 0)
        let orphan = try #require(ok(try cat.client.call("timeline.thread", ["post_id": nested["post_id"] as! Int])))
        #expect((orphan["ancestors"] as? [[String: Any]])?.first?["deleted"] as? Bool == true)
        #expect(errorCode(try bob.client.call("post.create", ["text": "late", "reply_to": rootId])) == "not_found")
        // Unrepost is idempotent; an administrator deletes anyone's post.
        #expect(ok(try bob.client.call("post.unrepost", ["post_id": rootId])) != nil)
        #expect(ok(try admin.client.call("post.delete", ["post_id": replyId])) != nil)
        #expect(errorCode(try cat.client.call("post.get", ["post_id": replyId])) == "not_found")
        #expect(sqlValue(database, "SELECT count(*) FROM posts WHERE seq < 0") == 0)
    }

    @Test func textRulesHandleAndVoiceClip() throws {
        let (server, port, database) = try startProtocolServer { $0.posts.maxPostLength = 10 }
        defer { stop(server); database.close() }
        let (ann, _) = try socialUser(port, database, "ann")
        let (bob, _) = try socialUser(port, database, "bob")
        let plain = try makeUser(port, "nohandle")
        for text in ["", "   ", "tab\there", "12345678901", "nul\u{0}"] {
            #expect(
                errorCode(try ann.client.call("post.create", ["text": text])) == "invalid_text",
                "\(text.debugDescription)")
        }
        let tenFamilies = "👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧"
        #expect(ok(try ann.client.call("post.create", ["text": tenFamilies])) != nil)
        #expect(errorCode(try plain.client.call("post.create", ["text": "hi"])) == "handle_required")
        #expect(errorCode(try ann.client.call("post.create", ["text": "x", "reply_to": 9_000_000_000])) == "not_found")
        #expect(errorCode(try ann.client.call("timeline.home", ["before": 5, "after": 1])) == "bad_request")
        #expect(errorCode(try ann.client.call("timeline.home", ["limit": 101])) == "bad_request")
        #expect(errorCode(try ann.client.call("timeline.hashtag", ["tag": "123"])) == "bad_request")
        let upload = try http(
            port, "POST", "/voice", token: bob.token, headers: ["Content-Type": "audio/wav"],
            body: toneWAV(seconds: 0.5))
        let bobsClip = try #require(json(upload.body)["voice_id"] as? Int)
        #expect(errorCode(try ann.client.call("post.create", ["voice_clip_id": bobsClip])) == "not_found")
        let voice = try #require(
            ok(try bob.client.call("post.create", ["voice_clip_id": bobsClip]))?["post"] as? [String: Any])
        #expect(voice["voice_clip_id"] as? Int == bobsClip && voice["text"] as? String == "")
    }

    @Test func aResendWithTheSameClientIdReturnsThePostItAlreadyMade() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let (ann, _) = try socialUser(port, database, "ann")
        let (bob, _) = try socialUser(port, database, "bob")
        let root = try #require(try post(bob.client, "root")["post_id"] as? Int)
        let first = try #require(
            ok(try ann.client.call("post.create", ["text": "once", "client_id": "c-1"]))?["post"] as? [String: Any])
        let again = try #require(
            ok(try ann.client.call("post.create", ["text": "once", "client_id": "c-1"]))?["post"] as? [String: Any])
        #expect(first["post_id"] as? Int == again["post_id"] as? Int && first["seq"] as? Int == again["seq"] as? Int)
        // Two devices resending one reply at the same moment: one post, one reply counted.
        let phone = try secondDevice(port, ann, "phone")
        let clients = Unchecked([ann.client, phone])
        let replies = Unchecked(NSMutableArray())
        let lock = NSLock()
        DispatchQueue.concurrentPerform(iterations: 2) { i in
            if let reply = try? clients.value[i].call(
                "post.create", ["text": "reply", "reply_to": root, "client_id": "c-2"]),
                let id = (ok(reply)?["post"] as? [String: Any])?["post_id"] as? Int
            {
                lock.withLock { replies.value.add(NSNumber(value: id)) }
            }
        }
        #expect(replies.value.count == 2 && Set(replies.value.compactMap { ($0 as? NSNumber)?.intValue }).count == 1)
        #expect(sqlValue(database, "SELECT post_count FROM users WHERE id = \(ann.id)") == 2)
        #expect(sqlValue(database, "SELECT count(*) FROM posts WHERE author_id = \(ann.id)") == 2)
        #expect(sqlValue(database, "SELECT reply_count FROM posts WHERE id = \(root)") == 1)
        // Another author may use the same client_id; an over-long one is refused and changes nothing.
        let bobs = try #require(
            ok(try bob.client.call("post.create", ["text": "mine", "client_id": "c-1"]))?["post"] as? [String: Any])
        #expect(bobs["post_id"] as? Int != first["post_id"] as? Int)
        #expect(
            errorCode(
                try ann.client.call("post.create", ["text": "x", "client_id": String(repeating: "x", count: 65)]))
                == "bad_request")
        #expect(sqlValue(database, "SELECT post_count FROM users WHERE id = \(ann.id)") == 2)
    }

    @Test func countsStayExactUnderConcurrentLikesAndUnlikesFromFiftyClients() throws {
        let (server, port, database) = try startProtocolServer { $0.databasePoolSize = 8 }
        defer { stop(server); database.close() }
        let (ann, _) = try socialUser(port, database, "ann")
        let target = try #require(try post(ann.client, "like me")["post_id"] as? Int)
        var likers: [TestUser] = []
        for i in 0..<50 { likers.append(try socialUser(port, database, "l\(i)").0) }
        let clients = Unchecked(likers.map(\.client))
        let failures = Unchecked(NSMutableArray())
        let lock = NSLock()
        // Each client: like, unlike, like, like (idempotent), and the odd ones unlike at the end: 25 likes remain.
        // Threads of their own: 50 blocked Dispatch workers would starve the server's queues in this process.
        let group = DispatchGroup()
        for i in 0..<50 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let client = clients.value[i]
                var ops = ["post.like", "post.unlike", "post.like", "post.like"]
                if i % 2 == 1 { ops.append("post.unlike") }
                for op in ops {
                    let reply = (try? client.call(op, ["post_id": target])) ?? [:]
                    if ok(reply) == nil {
                        lock.lock()
                        failures.value.add("\(op): \(reply)")
                        lock.unlock()
                    }
                }
            }
        }
        group.wait()
        #expect(failures.value.count == 0, "\(failures.value)")
        #expect(sqlValue(database, "SELECT like_count FROM posts WHERE id = \(target)") == 25)
        #expect(sqlValue(database, "SELECT count(*) FROM likes WHERE post_id = \(target)") == 25)
        let got = try #require(ok(try ann.client.call("post.get", ["post_id": target]))?["post"] as? [String: Any])
        #expect(got["like_count"] as? Int == 25)
    }

    @Test func pagingHomeWhilePostsArriveNeitherSkipsNorRepeats() throws {
        let (server, port, database) = try startProtocolServer { $0.databasePoolSize = 6 }
        defer { stop(server); database.close() }
        let (reader, _) = try socialUser(port, database, "reader")
        var authors: [TestUser] = []
        for i in 0..<3 {
            let (a, _) = try socialUser(port, database, "w\(i)")
            try follow(database, reader, a)
            authors.append(a)
        }
        for i in 0..<30 { _ = try post(authors[i % 3].client, "before \(i)") }
        let first = try #require(ok(try reader.client.call("timeline.home", ["limit": 7])))
        var seen = posts(["ok": first]).compactMap { $0["post_id"] as? Int }
        var before = first["before"] as? Int
        var after = try #require(first["after"] as? Int)
        // Writers keep posting (and replying among followees) while the reader pages back, then forward.
        let writers = Unchecked(authors.map(\.client))
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            for i in 0..<24 { _ = try? writers.value[i % 3].call("post.create", ["text": "during \(i)"]) }
        }
        var rounds = 0
        while let b = before, rounds < 50 {
            rounds += 1
            let page = try #require(ok(try reader.client.call("timeline.home", ["before": b, "limit": 7])))
            let pageIds = posts(["ok": page]).compactMap { $0["post_id"] as? Int }
            let seqs = posts(["ok": page]).compactMap { $0["seq"] as? Int }
            #expect(seqs == seqs.sorted(by: >))
            seen += pageIds
            before = page["before"] as? Int
        }
        group.wait()
        rounds = 0
        while rounds < 50 {
            rounds += 1
            let page = try #require(ok(try reader.client.call("timeline.home", ["after": after, "limit": 5])))
            let pagePosts = posts(["ok": page])
            let seqs = pagePosts.compactMap { $0["seq"] as? Int }
            #expect(seqs == seqs.sorted(by: >))
            #expect(seqs.allSatisfy { $0 > after })
            seen += pagePosts.compactMap { $0["post_id"] as? Int }
            after = try #require(page["after"] as? Int)
            if pagePosts.isEmpty { break }
        }
        #expect(seen.count == Set(seen).count, "a post came twice")
        #expect(seen.count == 54)
        let everything = sqlValue(
            database,
            "SELECT count(*) FROM posts"
                + " WHERE author_id IN (\(authors.map { String($0.id) }.joined(separator: ","))) AND deleted_at IS NULL"
        )
        #expect(everything == 54)
    }

    @Test func protectedAuthorsAndBlocksAreRefusedEverywhere() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let (pat, patHandle) = try socialUser(port, database, "pat")
        let (fan, _) = try socialUser(port, database, "fan")
        let (zed, _) = try socialUser(port, database, "zed")
        let (blk, blkHandle) = try socialUser(port, database, "blk")
        try runSQL(database, "UPDATE users SET protected = true WHERE id = \(pat.id)")
        try follow(database, fan, pat)
        try follow(database, zed, pat, state: "pending")
        let secret = try #require(try post(pat.client, "followers only #hidden")["post_id"] as? Int)
        let reply = try #require(try post(fan.client, "a fan's reply", replyTo: secret)["post_id"] as? Int)

        // A follower sees it (and may like and reply, not repost); a stranger or a pending follower sees nothing.
        #expect(ok(try fan.client.call("post.get", ["post_id": secret])) != nil)
        #expect(ok(try fan.client.call("post.like", ["post_id": secret])) != nil)
        #expect(errorCode(try fan.client.call("post.repost", ["post_id": secret])) == "forbidden")
        #expect(ids(try fan.client.call("timeline.home")) == [reply, secret])
        for op in ["post.get", "post.like", "post.unlike", "post.repost", "post.likers", "timeline.thread"] {
            #expect(errorCode(try zed.client.call(op, ["post_id": secret])) == "not_found", "\(op)")
        }
        #expect(errorCode(try zed.client.call("post.create", ["text": "hi", "reply_to": secret])) == "not_found")
        #expect(errorCode(try zed.client.call("timeline.likes", ["user_id": pat.id])) == "forbidden")
        #expect(ids(try zed.client.call("timeline.hashtag", ["tag": "hidden"])) == [])
        #expect(ids(try fan.client.call("timeline.hashtag", ["tag": "hidden"])) == [secret])
        #expect(ids(try zed.client.call("timeline.home")) == [])
        // The fan's reply is visible to Zed, but its protected ancestor is only `deleted`.
        let thread = try #require(ok(try zed.client.call("timeline.thread", ["post_id": reply])))
        #expect((thread["ancestors"] as? [[String: Any]])?.first?["deleted"] as? Bool == true)
        #expect(sqlValue(database, "SELECT count(*) FROM likes WHERE user_id = \(zed.id)") == 0)
        // The protected page: refused to Zed (the profile stays visible), open to the follower.
        #expect(errorCode(try zed.client.call("timeline.user", ["handle": patHandle])) == "forbidden")
        #expect(ok(try zed.client.call("profile.get", ["user_id": pat.id])) != nil)
        let patPage = try #require(ok(try fan.client.call("timeline.user", ["handle": patHandle])))
        #expect((patPage["posts"] as? [[String: Any]])?.map { $0["post_id"] as? Int } == [secret])
        #expect((patPage["profile"] as? [String: Any])?["user_id"] as? Int == pat.id)

        // Blocks: Blk blocks Fan: every op on Blk's posts answers not_found, and Fan's mention of Blk stores no row.
        try runSQL(database, "INSERT INTO blocks (blocker_id, blocked_id) VALUES (\(blk.id), \(fan.id))")
        let open = try #require(try post(blk.client, "public words")["post_id"] as? Int)
        for op in ["post.get", "post.like", "post.unlike", "post.repost", "post.likers", "timeline.thread"] {
            #expect(errorCode(try fan.client.call(op, ["post_id": open])) == "not_found", "\(op)")
        }
        #expect(errorCode(try fan.client.call("post.create", ["text": "hi", "reply_to": open])) == "not_found")
        #expect(errorCode(try fan.client.call("timeline.likes", ["user_id": blk.id])) == "not_found")
        #expect(errorCode(try fan.client.call("timeline.user", ["user_id": blk.id])) == "not_found")
        #expect(errorCode(try fan.client.call("post.delete", ["post_id": open])) == "not_found")
        let mention = try #require(try post(fan.client, "hey @\(blkHandle)")["post_id"] as? Int)
        #expect(sqlValue(database, "SELECT count(*) FROM post_mentions WHERE post_id = \(mention)") == 0)
        #expect(ids(try blk.client.call("timeline.mentions")) == [])
        // Blk cannot see Fan's posts either (either way), and Zed (no block) sees Blk's.
        #expect(errorCode(try blk.client.call("post.get", ["post_id": mention])) == "not_found")
        #expect(ok(try zed.client.call("post.get", ["post_id": open])) != nil)
        _ = patHandle
    }

    @Test func mentionsReachEveryDeviceAndMutesLeaveHome() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let (ann, annHandle) = try socialUser(port, database, "ann")
        let (bob, bobHandle) = try socialUser(port, database, "bob")
        let (mut, _) = try socialUser(port, database, "mut")
        let bob2 = try secondDevice(port, bob, "bob-2")
        // Both of Bob's devices follow their notifications live (LIVE's streams, fed by the posts' changes after
        // commit).
        for client in [bob.client, bob2] {
            #expect(ok(try client.call("live.subscribe", ["streams": ["notifications"]])) != nil)
        }
        let mentioning = try #require(
            try post(ann.client, "@\(bobHandle) and @\(bobHandle.uppercased()) and x@\(bobHandle)")["post_id"] as? Int)
        let notMentioning = try #require(try post(ann.client, "write \(bobHandle)@example.com")["post_id"] as? Int)
        #expect(ids(try bob.client.call("timeline.mentions")) == [mentioning])
        #expect(ids(try bob2.call("timeline.mentions")) == [mentioning])
        for client in [bob.client, bob2] {
            let event = try client.event("notification")
            let notification = event["notification"] as? [String: Any]
            #expect(notification?["kind"] as? String == "mention" && notification?["post_id"] as? Int == mentioning)
        }
        #expect(sqlValue(database, "SELECT count(*) FROM post_mentions WHERE post_id = \(notMentioning)") == 0)
        #expect(
            sqlValue(
                database, "SELECT count(*) FROM social_notifications WHERE user_id = \(bob.id) AND kind = 'mention'")
                == 1)

        // Mutes: Bob follows Ann and Mut and mutes Mut: Mut's posts and reposts and reposts of Mut's posts leave home.
        try follow(database, bob, ann)
        try follow(database, bob, mut)
        let mutPost = try #require(try post(mut.client, "muted words")["post_id"] as? Int)
        let annRepost = try #require(
            (ok(try ann.client.call("post.repost", ["post_id": mutPost]))?["post"] as? [String: Any])?["post_id"]
                as? Int)
        #expect(ids(try bob.client.call("timeline.home")).prefix(2) == [annRepost, mutPost])
        try runSQL(database, "INSERT INTO mutes (muter_id, muted_id) VALUES (\(bob.id), \(mut.id))")
        #expect(ids(try bob.client.call("timeline.home")) == [notMentioning, mentioning])
        #expect(ids(try bob2.call("timeline.home")) == [notMentioning, mentioning])
        // Replies of followees show on home only when they answer Bob or another followee.
        let (other, _) = try socialUser(port, database, "other")
        let otherPost = try #require(try post(other.client, "outside")["post_id"] as? Int)
        let toOutsider = try #require(try post(ann.client, "reply out", replyTo: otherPost)["post_id"] as? Int)
        let bobPost = try #require(try post(bob.client, "mine")["post_id"] as? Int)
        let toBob = try #require(try post(ann.client, "reply to bob", replyTo: bobPost)["post_id"] as? Int)
        let home = ids(try bob.client.call("timeline.home"))
        #expect(home.contains(toBob) && !home.contains(toOutsider) && home.contains(bobPost))
        let annPage = try #require(ok(try ann.client.call("timeline.user", ["handle": annHandle])))
        #expect(!(annPage["posts"] as? [[String: Any]] ?? []).contains { $0["post_id"] as? Int == toBob })
        let withReplies = try #require(ok(try ann.client.call("timeline.user", ["user_id": ann.id, "replies": true])))
        #expect((withReplies["posts"] as? [[String: Any]] ?? []).contains { $0["post_id"] as? Int == toBob })
    }

    @Test func openHomePagesGetNewPostsCountsAndDeletionsAfterCommit() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let (ann, _) = try socialUser(port, database, "ann")
        let (bob, _) = try socialUser(port, database, "bob")
        try follow(database, bob, ann)
        let bob2 = try secondDevice(port, bob, "bob-2")
        for client in [bob.client, bob2] {
            #expect(ok(try client.call("live.subscribe", ["streams": ["home"]])) != nil)
        }
        let id = try #require(try post(ann.client, "live words")["post_id"] as? Int)
        for client in [bob.client, bob2] {
            #expect((try client.event("post.new")["post"] as? [String: Any])?["post_id"] as? Int == id)
        }
        #expect(ok(try ann.client.call("post.like", ["post_id": id])) != nil)
        for client in [bob.client, bob2] {
            let counts = try client.event("post.counts")
            #expect(counts["post_id"] as? Int == id && counts["like_count"] as? Int == 1)
        }
        #expect(ok(try ann.client.call("post.delete", ["post_id": id])) != nil)
        for client in [bob.client, bob2] {
            let deleted = try client.event("post.deleted")
            #expect(deleted["post_id"] as? Int == id && deleted["author_id"] as? Int == ann.id)
        }
    }

    @Test func rateLimitsOfPostsLikesAndReposts() throws {
        let (server, port, database) = try startProtocolServer {
            $0.posts.postBurst = 3
            $0.posts.postRefillSeconds = 600
            $0.posts.likeBurst = 2
            $0.posts.likeRefillSeconds = 600
            $0.posts.repostBurst = 1
            $0.posts.repostRefillSeconds = 600
        }
        defer { stop(server); database.close() }
        let (ann, _) = try socialUser(port, database, "ann")
        var last = 0
        for i in 0..<3 { last = try #require(try post(ann.client, "p\(i)")["post_id"] as? Int) }
        let refused = try ann.client.call("post.create", ["text": "one too many"])
        #expect(errorCode(refused) == "rate_limited")
        #expect(((refused["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        #expect(ok(try ann.client.call("post.like", ["post_id": last])) != nil)
        #expect(ok(try ann.client.call("post.unlike", ["post_id": last])) != nil)
        #expect(errorCode(try ann.client.call("post.like", ["post_id": last])) == "rate_limited")
        #expect(ok(try ann.client.call("post.repost", ["post_id": last])) != nil)
        #expect(errorCode(try ann.client.call("post.unrepost", ["post_id": last])) == "rate_limited")
        #expect(sqlValue(database, "SELECT post_count FROM users WHERE id = \(ann.id)") == 4)
    }
}
