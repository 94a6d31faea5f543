//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardServer
import SwitchboardStore
import Testing

private func list(_ value: Any?) -> [[String: Any]] { value as? [[String: Any]] ?? [] }

/// A community with `core` as core members and `members` as ordinary members, made in SQL.
private func makeCommunity(_ database: DatabaseRuntime, _ name: String, core: [TestUser], members: [TestUser]) throws
    -> Int
{
    let id = Int.random(in: 1_000_000...9_000_000)
    var sql =
        "INSERT INTO communities (id, name, member_count) "
        + "VALUES (\(id), '\(name) \(id)', \(core.count + members.count));"
    for user in core {
        sql += "INSERT INTO community_members (community_id, user_id, role) VALUES (\(id), \(user.id), 'core');"
    }
    for user in members { sql += "INSERT INTO community_members (community_id, user_id) VALUES (\(id), \(user.id));" }
    try runSQL(database, sql)
    return id
}

/// The first column of the first row of a query (an integer), read on the test's thread; -1 when there is none.
private func sqlInt(_ database: DatabaseRuntime, _ sql: String) -> Int64 {
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

/// A member's unread count in a community (newest notification seq minus the member's marker).
private func unread(_ database: DatabaseRuntime, _ community: Int, _ user: TestUser) throws -> Int64 {
    sqlInt(
        database,
        """
        SELECT c.last_seq - m.read_seq FROM communities c JOIN community_members m ON m.community_id = c.id
        WHERE c.id = \(community) AND m.user_id = \(user.id)
        """)
}

@Suite("Announcements and courses over the real protocol", .serialized)
struct CoursesTests {
    @Test func announcementsNotifyEveryMemberAndOnlyCoreMembersPost() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        let zed = try makeUser(port, "zed")
        let bob2 = try secondDevice(port, bob, "bob-2")
        // Through the communities ops: an administrator creates the community, the others join, Ann is made core.
        let admin = try makeUser(port, "admin")
        try runSQL(database, "UPDATE users SET role = 'admin' WHERE id = \(admin.id)")
        let created0 = try #require(
            ok(try admin.client.call("communities.create", ["name": "Knitting \(Int.random(in: 1...999_999))"])))
        let community = try #require((created0["community"] as? [String: Any])?["community_id"] as? Int)
        for user in [ann, bob, cat] {
            _ = try #require(ok(try user.client.call("communities.join", ["community_id": community])))
        }
        _ = try #require(
            ok(try admin.client.call("communities.core", ["community_id": community, "user_id": ann.id, "core": true])))
        func unreadTotal(_ client: ProtocolClient) throws -> Int? {
            ok(try client.call("communities.unread"))?["unread_total"] as? Int
        }
        #expect(try unreadTotal(bob.client) == 0)

        // An ordinary member may not post; a stranger may not either, nor read.
        let refused = try bob.client.call(
            "community.posts.create", ["community_id": community, "kind": "announcement", "title": "Hi"])
        #expect(errorCode(refused) == "forbidden")
        #expect(
            errorCode(
                try zed.client.call(
                    "community.posts.create", ["community_id": community, "kind": "announcement", "title": "Hi"]))
                == "forbidden")
        #expect(errorCode(try zed.client.call("community.posts.list", ["community_id": community])) == "forbidden")
        #expect(errorCode(try zed.client.call("courses.get", ["community_id": community])) == "forbidden")
        #expect(errorCode(try zed.client.call("community.posts.list", ["community_id": 999_999_999])) == "not_found")

        #expect(try unread(database, community, bob) == 0)
        // The core member posts: every member's devices (both of Bob's) get the notification.
        let created = try #require(
            ok(
                try ann.client.call(
                    "community.posts.create",
                    [
                        "community_id": community, "kind": "announcement", "title": "Tea on Friday",
                        "body": "Bring wool\nand cake",
                    ])))
        let post = try #require(created["post"] as? [String: Any])
        let postId = try #require(post["post_id"] as? Int)
        #expect(post["kind"] as? String == "announcement")
        #expect(post["position"] is NSNull)
        #expect(post["voice_clip_id"] is NSNull)
        #expect((post["author"] as? [String: Any])?["user_id"] as? Int == ann.id)
        for client in [ann.client, bob.client, bob2, cat.client] {
            let notification = try #require(
                try client.event("community.notification")["notification"] as? [String: Any])
            #expect(notification["kind"] as? String == "announcement")
            #expect(notification["post_id"] as? Int == postId)
            #expect(notification["title"] as? String == "Tea on Friday")
            #expect(notification["community_id"] as? Int == community)
            #expect((notification["actor"] as? [String: Any])?["user_id"] as? Int == ann.id)
        }
        // Unread rises for the members, not for the author, who had read everything.
        #expect(try unread(database, community, bob) == 1)
        #expect(try unread(database, community, cat) == 1)
        #expect(try unread(database, community, ann) == 0)
        #expect(try unreadTotal(bob.client) == 1)
        #expect(try unreadTotal(bob2) == 1)
        #expect(try unreadTotal(ann.client) == 0)
        // Barrier: the post's request pushed the notification before it answered.
        #expect(try zed.client.noEventBeforeBarrier("community.notification"))

        // Members read it, newest first, in pages.
        let second = try #require(
            (ok(
                try ann.client.call(
                    "community.posts.create",
                    ["community_id": community, "kind": "announcement", "title": "Moved to Saturday"]))?["post"]
                as? [String: Any])?["post_id"] as? Int)
        let page = try #require(
            ok(try bob.client.call("community.posts.list", ["community_id": community, "limit": 1])))
        #expect(list(page["posts"]).map { $0["post_id"] as? Int } == [second])
        let next = try #require(page["next_before"] as? Int)
        let rest = try #require(
            ok(try bob.client.call("community.posts.list", ["community_id": community, "before": next])))
        #expect(list(rest["posts"]).map { $0["post_id"] as? Int } == [postId])
        #expect(rest["next_before"] is NSNull)

        // Edits and deletions: the author (not another member) changes them; members are told.
        #expect(
            errorCode(try bob.client.call("community.posts.update", ["post_id": postId, "title": "Mine"]))
                == "forbidden")
        #expect(errorCode(try zed.client.call("community.posts.delete", ["post_id": postId])) == "not_found")
        let edited = try #require(
            ok(
                try ann.client.call(
                    "community.posts.update",
                    ["post_id": postId, "title": "Tea on Friday at 4", "video_url": "https://example.com/v"])))
        #expect((edited["post"] as? [String: Any])?["video_url"] as? String == "https://example.com/v")
        let updated = try #require(try cat.client.event("community.post.updated")["post"] as? [String: Any])
        #expect(updated["title"] as? String == "Tea on Friday at 4")
        let cleared = try #require(
            ok(try ann.client.call("community.posts.update", ["post_id": postId, "video_url": NSNull()])))
        #expect((cleared["post"] as? [String: Any])?["video_url"] is NSNull)
        #expect((cleared["post"] as? [String: Any])?["title"] as? String == "Tea on Friday at 4")
        #expect(
            errorCode(
                try ann.client.call("community.posts.update", ["post_id": postId, "video_url": "javascript:alert(1)"]))
                == "bad_request")
        #expect(ok(try ann.client.call("community.posts.delete", ["post_id": postId])) != nil)
        let deleted = try cat.client.event("community.post.deleted")
        #expect(deleted["post_id"] as? Int == postId)
        #expect(deleted["community_id"] as? Int == community)
        #expect(
            list(ok(try bob.client.call("community.posts.list", ["community_id": community]))?["posts"]).map {
                $0["post_id"] as? Int
            } == [second])
        #expect(errorCode(try ann.client.call("community.posts.delete", ["post_id": postId])) == "not_found")

        // Bad input changes nothing.
        #expect(
            errorCode(
                try ann.client.call(
                    "community.posts.create", ["community_id": community, "kind": "poem", "title": "x"]))
                == "bad_request")
        #expect(
            errorCode(
                try ann.client.call(
                    "community.posts.create", ["community_id": community, "kind": "announcement", "title": ""]))
                == "bad_request")
        #expect(
            errorCode(
                try ann.client.call(
                    "community.posts.create",
                    ["community_id": community, "kind": "announcement", "title": "x", "position": 1]))
                == "bad_request")
        #expect(
            errorCode(
                try ann.client.call(
                    "community.posts.create",
                    ["community_id": community, "kind": "lesson", "title": "x", "video_url": "ftp://a/b"]))
                == "bad_request")
        #expect(errorCode(try ann.client.call("community.posts.update", ["post_id": second])) == "bad_request")

        // An administrator who is not a member posts, reads and edits others' posts.
        try runSQL(database, "UPDATE users SET role = 'admin' WHERE id = \(zed.id)")
        let byAdmin = try #require(
            ok(
                try zed.client.call(
                    "community.posts.create",
                    ["community_id": community, "kind": "announcement", "title": "From the office"])))
        #expect((byAdmin["post"] as? [String: Any])?["title"] as? String == "From the office")
        #expect(list(ok(try zed.client.call("community.posts.list", ["community_id": community]))?["posts"]).count == 2)
        #expect(
            ok(try zed.client.call("community.posts.update", ["post_id": second, "body": "Edited by the office"]))
                != nil)
    }

    @Test func lessonsKeepTheirOrderAcrossInsertsAndDeletes() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let community = try makeCommunity(database, "Chess", core: [ann], members: [bob])
        func lesson(_ title: String, _ position: Int? = nil) throws -> Int {
            var params: [String: Any] = ["community_id": community, "kind": "lesson", "title": title]
            if let position { params["position"] = position }
            let post = try #require(
                ok(try ann.client.call("community.posts.create", params))?["post"] as? [String: Any])
            return try #require(post["post_id"] as? Int)
        }
        func course() throws -> [String] {
            list(ok(try bob.client.call("courses.get", ["community_id": community]))?["lessons"]).map {
                "\($0["position"] as? Int ?? 0):\($0["title"] as? String ?? "?")"
            }
        }
        _ = try lesson("A")
        let b = try lesson("B")
        _ = try lesson("C")
        #expect(try course() == ["1:A", "2:B", "3:C"])
        // Inserting in the middle moves the later lessons down, in one transaction.
        _ = try lesson("X", 2)
        #expect(try course() == ["1:A", "2:X", "3:B", "4:C"])
        _ = try lesson("First", 1)
        #expect(try course() == ["1:First", "2:A", "3:X", "4:B", "5:C"])
        // Past the end means last.
        _ = try lesson("Z", 99)
        #expect(try course() == ["1:First", "2:A", "3:X", "4:B", "5:C", "6:Z"])
        // Deleting keeps the others' order (a gap is left); a later insertion fills after the last.
        #expect(ok(try ann.client.call("community.posts.delete", ["post_id": b])) != nil)
        #expect(try course() == ["1:First", "2:A", "3:X", "5:C", "6:Z"])
        _ = try lesson("Y", 4)
        #expect(try course() == ["1:First", "2:A", "3:X", "4:Y", "6:C", "7:Z"])
        _ = try lesson("End")
        #expect(try course().last == "8:End")
        // Each lesson notified the members.
        var seen = 0
        while seen < 7, (try? bob.client.event("community.notification")) != nil { seen += 1 }
        #expect(seen == 7)
    }

    @Test func progressPerMemberShownToTheMemberAndToCoreMembers() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        let zed = try makeUser(port, "zed")
        let bob2 = try secondDevice(port, bob, "bob-2")
        let community = try makeCommunity(database, "Garden", core: [ann], members: [bob, cat])
        var lessons: [Int] = []
        for title in ["Soil", "Seeds", "Water"] {
            let post = try #require(
                ok(
                    try ann.client.call(
                        "community.posts.create", ["community_id": community, "kind": "lesson", "title": title]))?[
                        "post"] as? [String: Any])
            lessons.append(try #require(post["post_id"] as? Int))
        }
        let announcement = try #require(
            (ok(
                try ann.client.call(
                    "community.posts.create", ["community_id": community, "kind": "announcement", "title": "News"]))?[
                    "post"]
                as? [String: Any])?["post_id"] as? Int)

        // Bob completes two lessons: the reply, his other device, his view of the course.
        let first = try #require(ok(try bob.client.call("courses.complete", ["post_id": lessons[0]])))
        #expect(first["completed"] as? Int == 1)
        #expect(first["total"] as? Int == 3)
        let progress = try bob2.event("course.progress")
        #expect(progress["post_id"] as? Int == lessons[0])
        #expect(progress["completed"] as? Bool == true)
        #expect(progress["completed_count"] as? Int == 1)
        #expect(progress["total"] as? Int == 3)
        #expect(progress["community_id"] as? Int == community)
        #expect(ok(try bob.client.call("courses.complete", ["post_id": lessons[2]]))?["completed"] as? Int == 2)
        // Completing twice is the same state.
        #expect(ok(try bob.client.call("courses.complete", ["post_id": lessons[2]]))?["completed"] as? Int == 2)
        let bobsCourse = try #require(ok(try bob.client.call("courses.get", ["community_id": community])))
        #expect(bobsCourse["completed"] as? Int == 2)
        #expect(bobsCourse["total"] as? Int == 3)
        #expect(list(bobsCourse["lessons"]).map { $0["completed"] as? Bool } == [true, false, true])
        // Cat's own view is untouched.
        let catsCourse = try #require(ok(try cat.client.call("courses.get", ["community_id": community])))
        #expect(catsCourse["completed"] as? Int == 0)
        #expect(list(catsCourse["lessons"]).map { $0["completed"] as? Bool } == [false, false, false])
        // Un-marking.
        #expect(
            ok(try bob.client.call("courses.complete", ["post_id": lessons[0], "completed": false]))?["completed"]
                as? Int == 1)
        // Bob's other device saw each change in order: lesson 3 (twice: the same state), then lesson 1 un-marked.
        #expect(try bob2.event("course.progress")["completed_count"] as? Int == 2)
        #expect(try bob2.event("course.progress")["completed_count"] as? Int == 2)
        let unmarked = try bob2.event("course.progress")
        #expect(unmarked["completed"] as? Bool == false)
        #expect(unmarked["post_id"] as? Int == lessons[0])
        #expect(unmarked["completed_count"] as? Int == 1)

        // Refusals: not a lesson, not a member, no such post.
        #expect(errorCode(try bob.client.call("courses.complete", ["post_id": announcement])) == "bad_request")
        #expect(errorCode(try zed.client.call("courses.complete", ["post_id": lessons[1]])) == "forbidden")
        #expect(errorCode(try bob.client.call("courses.complete", ["post_id": 999_999_999])) == "not_found")

        // The core member sees everyone's progress, by display name, in pages; an ordinary member may not.
        #expect(errorCode(try bob.client.call("courses.progress", ["community_id": community])) == "forbidden")
        #expect(errorCode(try zed.client.call("courses.progress", ["community_id": community])) == "forbidden")
        let page = try #require(ok(try ann.client.call("courses.progress", ["community_id": community, "limit": 2])))
        #expect(page["total"] as? Int == 3)
        let firstPage = list(page["members"]).map {
            "\(($0["user"] as? [String: Any])?["display_name"] as? String ?? "?"):\($0["completed"] as? Int ?? -1)"
        }
        #expect(firstPage == ["ann:0", "bob:1"])
        let cursor = try #require(page["next_cursor"] as? String)
        let rest = try #require(
            ok(try ann.client.call("courses.progress", ["community_id": community, "cursor": cursor])))
        #expect(list(rest["members"]).map { ($0["user"] as? [String: Any])?["user_id"] as? Int } == [cat.id])
        #expect(rest["next_cursor"] is NSNull)

        // A deleted lesson no longer counts.
        #expect(ok(try ann.client.call("community.posts.delete", ["post_id": lessons[2]])) != nil)
        let after = try #require(ok(try bob.client.call("courses.get", ["community_id": community])))
        #expect(after["completed"] as? Int == 0)
        #expect(after["total"] as? Int == 2)
    }

    @Test func voiceClipsMustBeTheAuthorsAndReachTheMembers() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let zed = try makeUser(port, "zed")
        let community = try makeCommunity(database, "Choir", core: [ann, bob], members: [])
        func upload(_ user: TestUser) throws -> Int {
            let reply = try http(
                port, "POST", "/voice", token: user.token, headers: ["Content-Type": "audio/wav"],
                body: toneWAV(seconds: 0.5))
            return try #require(json(reply.body)["voice_id"] as? Int)
        }
        let annsClip = try upload(ann)
        let bobsClip = try upload(bob)
        // Bob's clip in Ann's post is refused, and nothing is posted.
        let refused = try ann.client.call(
            "community.posts.create",
            ["community_id": community, "kind": "lesson", "title": "Scales", "voice_clip_id": bobsClip])
        #expect(errorCode(refused) == "not_found")
        #expect(list(ok(try bob.client.call("courses.get", ["community_id": community]))?["lessons"]).isEmpty)
        let post = try #require(
            ok(
                try ann.client.call(
                    "community.posts.create",
                    ["community_id": community, "kind": "lesson", "title": "Scales", "voice_clip_id": annsClip]))?[
                    "post"] as? [String: Any])
        #expect(post["voice_clip_id"] as? Int == annsClip)
        let postId = try #require(post["post_id"] as? Int)
        #expect(
            errorCode(try ann.client.call("community.posts.update", ["post_id": postId, "voice_clip_id": bobsClip]))
                == "not_found")
        // Members hear it; strangers do not.
        #expect(try http(port, "GET", "/voice/\(annsClip)", token: bob.token).status == 200)
        #expect(try http(port, "GET", "/voice/\(annsClip)", token: zed.token).status == 404)
    }

    @Test func theAccountExportHasThePostsAndTheProgress() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let community = try makeCommunity(database, "Books", core: [ann], members: [])
        let post = try #require(
            ok(
                try ann.client.call(
                    "community.posts.create", ["community_id": community, "kind": "lesson", "title": "Reading"]))?[
                    "post"] as? [String: Any])
        let postId = try #require(post["post_id"] as? Int)
        _ = try #require(ok(try ann.client.call("courses.complete", ["post_id": postId])))
        let entries = try await server.collectExport(userId: Int64(ann.id), exportId: 1)
        let posts = try #require(entries.first { $0.path == "community_posts.json" })
        let progress = try #require(entries.first { $0.path == "lesson_progress.json" })
        let postList = try #require(try JSONSerialization.jsonObject(with: Data(posts.bytes)) as? [[String: Any]])
        #expect(postList.map { $0["post_id"] as? Int } == [postId])
        #expect(postList.first?["title"] as? String == "Reading")
        let progressList = try #require(
            try JSONSerialization.jsonObject(with: Data(progress.bytes)) as? [[String: Any]])
        #expect(progressList.map { $0["post_id"] as? Int } == [postId])

        // Deleting the account removes its progress; the lesson stays, without an author.
        #expect(ok(try ann.client.call("account.delete", ["password": ann.password])) != nil)
        #expect(
            waitUntil(timeout: 30) {
                sqlInt(database, "SELECT count(*) FROM lesson_progress WHERE user_id = \(ann.id)") == 0
            })
        #expect(
            sqlInt(database, "SELECT count(*) FROM community_posts WHERE id = \(postId) AND deleted_at IS NULL") == 1)
    }

    /// The limits of `CommunityConfiguration` are the server's, not constants: a server configured lower refuses
    /// what the defaults allow, and a core member's posts stop at the hourly allowance while an administrator's do
    /// not (a refused post stores nothing and notifies no one).
    @Test func configuredLimitsAndTheCoreMembersPostRate() throws {
        let (server, port, database) = try startProtocolServer { c in
            c.communities.publicationsPerHour = 2
            c.communities.maxPage = 30
            c.communities.maxPeoplePage = 60
            c.communities.maxEventDays = 2
            c.communities.maxEventCapacity = 10
            c.communities.maxPostCharacters = 20
            c.communities.maxDescriptionCharacters = 30
            c.communities.maxCalendarEvents = 1
        }
        defer { stop(server); database.close() }
        let admin = try makeUser(port, "admin")
        try runSQL(database, "UPDATE users SET role = 'admin' WHERE id = \(admin.id)")
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let long = String(repeating: "é", count: 31)
        #expect(
            errorCode(
                try admin.client.call(
                    "communities.create", ["name": "Limits \(Int.random(in: 1...999_999))", "description": long]))
                == "bad_request")
        let created = try #require(
            ok(try admin.client.call("communities.create", ["name": "Limits \(Int.random(in: 1...999_999))"])))
        let community = try #require((created["community"] as? [String: Any])?["community_id"] as? Int)
        for user in [ann, bob] {
            _ = try #require(ok(try user.client.call("communities.join", ["community_id": community])))
        }
        _ = try #require(
            ok(try admin.client.call("communities.core", ["community_id": community, "user_id": ann.id, "core": true])))

        // Pages: 30 and 60 at most.
        #expect(errorCode(try ann.client.call("communities.list", ["limit": 31])) == "bad_request")
        #expect(ok(try ann.client.call("communities.list", ["limit": 30])) != nil)
        #expect(
            errorCode(try ann.client.call("communities.members", ["community_id": community, "limit": 61]))
                == "bad_request")
        #expect(ok(try ann.client.call("communities.members", ["community_id": community, "limit": 60])) != nil)
        #expect(
            errorCode(try ann.client.call("community.posts.list", ["community_id": community, "limit": 31]))
                == "bad_request")

        // Events: 2 days, 10 seats, a 30-character description.
        let start = Date().addingTimeInterval(86_400)
        func event(days: Double, capacity: Int, description: String = "") throws -> [String: Any] {
            try admin.client.call(
                "events.create",
                [
                    "community_id": community, "title": "Walk", "starts_at": WireTimestamp.string(from: start),
                    "ends_at": WireTimestamp.string(from: start.addingTimeInterval(days * 86_400)),
                    "time_zone": "Europe/Paris",
                    "capacity": capacity, "description": description,
                ])
        }
        #expect(errorCode(try event(days: 2.5, capacity: 5)) == "bad_request")
        #expect(errorCode(try event(days: 1, capacity: 11)) == "bad_request")
        #expect(errorCode(try event(days: 1, capacity: 5, description: long)) == "bad_request")
        var events: [Int] = []
        for _ in 0..<2 {
            let e = try #require(ok(try event(days: 1, capacity: 10)))
            events.append(try #require((e["event"] as? [String: Any])?["event_id"] as? Int))
        }
        // The calendar carries one event at most here.
        for id in events { _ = try #require(ok(try bob.client.call("events.join", ["event_id": id]))) }
        let year = try #require(
            ok(
                try bob.client.call(
                    "calendar.get", ["range": "year", "date": String(WireTimestamp.string(from: start).prefix(10))])))
        #expect((year["events"] as? [Any])?.count == 1)

        // Posts: 20 characters; two an hour for the core member, then rate_limited with retry_after_ms.
        #expect(
            errorCode(
                try ann.client.call(
                    "community.posts.create",
                    ["community_id": community, "kind": "announcement", "title": "T", "body": long])) == "bad_request")
        for n in 1...2 {
            #expect(
                ok(
                    try ann.client.call(
                        "community.posts.create",
                        ["community_id": community, "kind": "announcement", "title": "Post \(n)"])) != nil)
        }
        let limited = try ann.client.call(
            "community.posts.create", ["community_id": community, "kind": "announcement", "title": "Post 3"])
        #expect(errorCode(limited) == "rate_limited")
        #expect(((limited["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        #expect(sqlInt(database, "SELECT count(*) FROM community_posts WHERE community_id = \(community)") == 2)
        // The administrator is not limited.
        for n in 1...3 {
            #expect(
                ok(
                    try admin.client.call(
                        "community.posts.create",
                        ["community_id": community, "kind": "announcement", "title": "Admin \(n)"])) != nil)
        }
        #expect(sqlInt(database, "SELECT count(*) FROM community_posts WHERE community_id = \(community)") == 5)
    }
}
