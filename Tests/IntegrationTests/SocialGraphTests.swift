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
import SwitchboardServer
import SwitchboardStore
import Testing

/// Runs `body` in a transaction on a connection of the test database and returns its value.
private func graphSQL<T: Sendable>(
    _ database: DatabaseRuntime, _ body: @escaping @Sendable (PostgresConnection) throws -> T
) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let box = Unchecked(NSMutableArray())
    database.pool.withConnection(
        on: DispatchQueue(label: "test.graph.sql"), { db in try db.transaction { db in try body(db) } },
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

/// A fresh handle-shaped suffix (the suites share one database).
private func tag() -> String { String(UInt32.random(in: 0...UInt32.max), radix: 36) }

/// Inserts a user row straight into the store; its id.
private func insertUser(_ db: PostgresConnection, _ name: String, handle: String?, protected: Bool = false) throws
    -> Int64
{
    let id = try db.execute(
        cached: "INSERT INTO users (phone, password_hash, display_name, handle, protected)"
            + " VALUES ($1, 'x', $2, $3, $4) RETURNING id",
        [.text(freshPhone() + tag()), .text(name), handle.map(PostgresData.text), .bool(protected)]
    ).decodeFirst(Int64.self)
    return try #require(id)
}

@Suite("Social graph store helpers")
struct SocialGraphStoreTests {
    @Test func handleRules() {
        #expect(Handle.validate("ann_1") == nil)
        #expect(Handle.validate("Ann") == nil)
        #expect(Handle.validate("ab") == .invalid)
        #expect(Handle.validate(String(repeating: "a", count: 31)) == .invalid)
        #expect(Handle.validate(String(repeating: "a", count: 30)) == nil)
        #expect(Handle.validate("ann-1") == .invalid)
        #expect(Handle.validate("änn") == .invalid)
        #expect(Handle.validate("@ann") == .invalid)
        #expect(Handle.validate("Admin") == .reserved)
        #expect(Handle.validate("live") == .reserved)
    }

    @Test func visibilityBlocksMutesAndLookups() throws {
        let (server, _, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let t = tag()
        try graphSQL(database) { db in
            let ann = try insertUser(db, "Ann", handle: "Ann_\(t)")
            let bob = try insertUser(db, "Bob", handle: "bob_\(t)", protected: true)
            let cat = try insertUser(db, "Cat", handle: nil)
            let dan = try insertUser(db, "Dan", handle: "dan_\(t)")

            // Public author: anyone; protected author: self and active followers only.
            #expect(try SocialGraphRepository.canSeePosts(db, viewer: bob, author: ann))
            #expect(try SocialGraphRepository.canSeePosts(db, viewer: bob, author: bob))
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: bob)))
            try db.execute(
                cached: "INSERT INTO follows (follower_id, followee_id, state) VALUES ($1, $2, 'pending')",
                [.int(ann), .int(bob)])
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: bob)))
            try db.execute(
                cached: "UPDATE follows SET state = 'active' WHERE follower_id = $1 AND followee_id = $2",
                [.int(ann), .int(bob)])
            #expect(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: bob))
            #expect(try SocialGraphRepository.activeFolloweeIds(db, of: ann) == [bob])
            #expect(try SocialGraphRepository.activeFolloweeIds(db, of: bob).isEmpty)

            // Blocks either way hide everything, even a public author.
            try db.execute(
                cached: "INSERT INTO blocks (blocker_id, blocked_id) VALUES ($1, $2)", [.int(dan), .int(ann)])
            #expect(try SocialGraphRepository.isBlockedEitherWay(db, ann, dan))
            #expect(try SocialGraphRepository.isBlockedEitherWay(db, dan, ann))
            #expect(!(try SocialGraphRepository.isBlockedEitherWay(db, ann, bob)))
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: dan)))
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: dan, author: ann)))
            #expect(try SocialGraphRepository.blockedEitherWayIds(db, of: ann) == [dan])
            #expect(try SocialGraphRepository.blockedEitherWayIds(db, of: dan) == [ann])
            #expect(!(try SocialGraphRepository.canSeePosts(db, viewer: ann, author: 0)))

            try db.execute(
                cached: "INSERT INTO mutes (muter_id, muted_id) VALUES ($1, $2), ($1, $3)",
                [.int(bob), .int(ann), .int(cat)])
            #expect(try SocialGraphRepository.mutedIds(db, of: bob) == [ann, cat])
            #expect(try SocialGraphRepository.mutedIds(db, of: ann).isEmpty)

            // Handles: case-insensitive lookup, only well-formed strings, deleted accounts absent.
            let ids = try SocialGraphRepository.userIds(
                db, handles: ["ann_\(t)", "BOB_\(t)", "nobody_\(t)", "x'y", "cat"])
            #expect(ids == ["ann_\(t)": ann, "bob_\(t)": bob])
            #expect(try SocialGraphRepository.hasHandle(db, ann))
            #expect(!(try SocialGraphRepository.hasHandle(db, cat)))
            try db.execute(cached: "UPDATE users SET deleted_at = now() WHERE id = $1", [.int(dan)])
            #expect(try SocialGraphRepository.userIds(db, handles: ["dan_\(t)"]).isEmpty)
            #expect(!(try SocialGraphRepository.hasHandle(db, dan)))

            let users = try SocialGraphRepository.socialUsers(db, ids: [ann, bob, cat, ann, -5])
            #expect(users.count == 3)
            #expect(users[ann] == SocialUser(userId: ann, displayName: "Ann", handle: "Ann_\(t)", protected: false))
            #expect(users[bob]?.protected == true)
            #expect(users[cat]?.handle == nil)
            #expect(try SocialGraphRepository.socialUsers(db, ids: []).isEmpty)
        }
    }

    @Test func socialUserEncodesANullHandle() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(
            decoding: try encoder.encode(SocialUser(userId: 7, displayName: "Cat", handle: nil, protected: false)),
            as: UTF8.self)
        #expect(json.contains("\"handle\":null"))
        #expect(json.contains("\"user_id\":7"))
    }
}

// MARK: - Over the real protocol

/// A user registered with a handle (`handle` nil: without one).
private func socialUser(_ port: Int, _ name: String, handle: String?) throws -> TestUser {
    let client = try ProtocolClient(port: port)
    let phone = freshPhone()
    let password = "\(name) secret pass 42"
    var params: [String: Any] = ["phone": phone, "password": password, "display_name": name, "device": "\(name)-1"]
    if let handle { params["handle"] = handle }
    let r = try #require(ok(try client.call("register", params)))
    return TestUser(
        id: try #require(r["user_id"] as? Int), phone: phone, password: password,
        token: try #require(r["session_token"] as? String), client: client)
}

/// One integer from the test database.
private func scalar(_ database: DatabaseRuntime, _ sql: String) throws -> Int {
    try database.pool.connectionForTests { db in Int(try db.execute(cached: sql).first?.string(0) ?? "-1") ?? -1 }
}

/// A user's profile as `viewer` sees it (nil: refused), and the error code.
private func profile(_ viewer: TestUser, _ user: TestUser) throws -> [String: Any]? {
    ok(try viewer.client.call("profile.get", ["user_id": user.id]))?["profile"] as? [String: Any]
}

private func stats(_ viewer: TestUser, _ user: TestUser) throws -> (posts: Int, following: Int, followers: Int) {
    let s = try #require(try profile(viewer, user)?["stats"] as? [String: Any])
    return (s["posts"] as? Int ?? -1, s["following"] as? Int ?? -1, s["followers"] as? Int ?? -1)
}

private func ids(_ reply: [String: Any]) -> [Int] {
    (ok(reply)?["users"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? Int }
}

@Suite("Social graph over the real protocol", .serialized)
struct SocialGraphTests {
    @Test func handlesRegisterSetCheckAndProfileVisibility() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let t = tag()
        let ann = try socialUser(port, "ann", handle: "Ann_\(t)")
        // Case-insensitive uniqueness, reserved words and the shape, at registration.
        let fresh = try ProtocolClient(port: port)
        func register(_ handle: String) throws -> String? {
            errorCode(
                try fresh.call(
                    "register",
                    [
                        "phone": freshPhone(), "password": "ample meadow 31", "display_name": "X", "device": "d",
                        "handle": handle,
                    ]))
        }
        #expect(try register("ann_\(t)") == "handle_taken")
        #expect(try register("ADMIN") == "bad_request")
        #expect(try register("a-b") == "bad_request")
        #expect(try register("ab") == "bad_request")
        // Nothing was created by the refused registrations: the phone numbers register fine afterwards without a
        // handle.
        let bob = try socialUser(port, "bob", handle: nil)
        let cat = try socialUser(port, "cat", handle: nil)

        // handle.check: invalid, reserved, taken (case-insensitively), available; one's own is available.
        func check(_ user: TestUser, _ h: String) throws -> (Bool, String?) {
            let r = try #require(ok(try user.client.call("handle.check", ["handle": h])))
            return (r["available"] as? Bool ?? false, r["reason"] as? String)
        }
        #expect(try check(bob, "x") == (false, "invalid"))
        #expect(try check(bob, "Live") == (false, "reserved"))
        #expect(try check(bob, "ANN_\(t)") == (false, "taken"))
        #expect(try check(ann, "ANN_\(t)") == (true, nil))
        #expect(try check(bob, "bob_\(t)") == (true, nil))

        // A user without a handle is invisible to strangers; one with a handle is visible (by id or handle).
        #expect(try profile(cat, bob) == nil)
        #expect(errorCode(try cat.client.call("profile.get", ["user_id": bob.id])) == "not_found")
        let seen = try #require(try profile(cat, ann))
        #expect(seen["handle"] as? String == "Ann_\(t)")
        #expect(seen["phone"] == nil)
        #expect(seen["dm_policy"] == nil)
        #expect((seen["relationship"] as? [String: Any])?["following"] as? String == "none")
        let byHandle = try #require(
            ok(try cat.client.call("profile.get", ["handle": "aNN_\(t)"]))?["profile"] as? [String: Any])
        #expect(byHandle["user_id"] as? Int == ann.id)
        #expect(errorCode(try cat.client.call("profile.get", ["handle": "nobody_\(t)"])) == "not_found")
        let own = try #require(try profile(ann, ann))
        #expect(own["dm_policy"] as? String == "friends")
        #expect(own["bio"] as? String == "")
        #expect(own["relationship"] == nil)

        // handle.set: profile.updated with the handle to own devices and friends; taken and invalid refused.
        let bob2 = try secondDevice(port, bob, "bob-2")
        try befriend(bob, cat)
        #expect(errorCode(try bob.client.call("handle.set", ["handle": "ann_\(t)"])) == "handle_taken")
        #expect(errorCode(try bob.client.call("handle.set", ["handle": "root"])) == "bad_request")
        let set = try #require(
            ok(try bob.client.call("handle.set", ["handle": "Bob_\(t)"]))?["profile"] as? [String: Any])
        #expect(set["handle"] as? String == "Bob_\(t)")
        #expect((try bob2.event("profile.updated")["profile"] as? [String: Any])?["handle"] as? String == "Bob_\(t)")
        #expect(
            (try cat.client.event("profile.updated")["profile"] as? [String: Any])?["handle"] as? String == "Bob_\(t)")
        // Changing only the case of one's own handle is allowed.
        #expect(
            (ok(try bob.client.call("handle.set", ["handle": "BOB_\(t)"]))?["profile"] as? [String: Any])?["handle"]
                as? String == "BOB_\(t)")

        // profile.update: bio (160 characters), dm_policy, protected.
        #expect(
            errorCode(try ann.client.call("profile.update", ["bio": String(repeating: "é", count: 161)]))
                == "bad_request")
        #expect(errorCode(try ann.client.call("profile.update", ["dm_policy": "everyone"])) == "bad_request")
        #expect(errorCode(try ann.client.call("profile.update", ["bio": "a\u{1}b"])) == "bad_request")
        let updated = try #require(
            ok(try ann.client.call("profile.update", ["bio": "  Knits.\nReads.  ", "dm_policy": "mutuals"]))?["profile"]
                as? [String: Any])
        #expect(updated["bio"] as? String == "Knits.\nReads.")
        #expect(updated["dm_policy"] as? String == "mutuals")
        #expect(try scalar(database, "SELECT count(*) FROM users WHERE lower(handle) = lower('ann_\(t)')") == 1)
    }

    @Test func followsCountsEventsNotificationsAndRefusals() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let t = tag()
        let ann = try socialUser(port, "ann", handle: "ann_\(t)")
        let bob = try socialUser(port, "bob", handle: "bob_\(t)")
        let noHandle = try socialUser(port, "nick", handle: nil)
        let ann2 = try secondDevice(port, ann, "ann-2")

        #expect(errorCode(try noHandle.client.call("follow", ["user_id": bob.id])) == "handle_required")
        #expect(errorCode(try ann.client.call("follow", ["user_id": noHandle.id])) == "not_found")
        #expect(errorCode(try ann.client.call("follow", ["user_id": 999_999_999])) == "not_found")
        #expect(errorCode(try ann.client.call("follow", ["user_id": ann.id])) == "bad_request")

        let r = try #require(ok(try ann.client.call("follow", ["user_id": bob.id])))
        #expect(r["state"] as? String == "active")
        #expect((r["profile"] as? [String: Any])?["handle"] as? String == "bob_\(t)")
        #expect(
            ((r["profile"] as? [String: Any])?["relationship"] as? [String: Any])?["following"] as? String == "active")
        let changed = try ann2.event("follow.changed")
        #expect(changed["user_id"] as? Int == bob.id && changed["state"] as? String == "active")
        // Again: the same state, nothing counted twice.
        #expect(ok(try ann.client.call("follow", ["user_id": bob.id]))?["state"] as? String == "active")
        #expect(try stats(ann, bob).followers == 1)
        #expect(try stats(ann, ann).following == 1)
        #expect(
            try scalar(
                database,
                "SELECT count(*) FROM social_notifications"
                    + " WHERE user_id = \(bob.id) AND actor_id = \(ann.id) AND kind = 'follow'"
            ) == 1)
        #expect(((try profile(bob, ann))?["relationship"] as? [String: Any])?["followed_by"] as? Bool == true)

        #expect(ids(try bob.client.call("followers")) == [ann.id])
        #expect(ids(try ann.client.call("following")) == [bob.id])
        #expect(ids(try noHandle.client.call("followers", ["user_id": bob.id])) == [ann.id])
        #expect(errorCode(try ann.client.call("followers", ["user_id": noHandle.id])) == "not_found")
        #expect(errorCode(try ann.client.call("followers", ["limit": 0])) == "bad_request")

        #expect(ok(try ann.client.call("unfollow", ["user_id": bob.id])) != nil)
        #expect(try ann2.event("follow.changed")["state"] as? String == "none")
        #expect(ok(try ann.client.call("unfollow", ["user_id": bob.id])) != nil)
        #expect(try stats(ann, bob).followers == 0)
        #expect(try stats(ann, ann).following == 0)
        // Followed again: no second notification (one per actor and kind).
        _ = try ann.client.call("follow", ["user_id": bob.id])
        #expect(
            try scalar(
                database, "SELECT count(*) FROM social_notifications WHERE user_id = \(bob.id) AND actor_id = \(ann.id)"
            ) == 1)

        // follower.remove.
        #expect(ok(try bob.client.call("follower.remove", ["user_id": ann.id])) != nil)
        #expect(errorCode(try bob.client.call("follower.remove", ["user_id": ann.id])) == "not_found")
        #expect(try stats(ann, bob).followers == 0)

        // Paging of followers: newest first, next_before, no duplicates.
        var followers: [TestUser] = []
        for i in 0..<5 {
            let u = try socialUser(port, "f\(i)", handle: "f\(i)_\(t)")
            _ = try #require(ok(try u.client.call("follow", ["user_id": bob.id])))
            followers.append(u)
        }
        var seen: [Int] = []
        var before: Int? = nil
        for _ in 0..<5 {
            var params: [String: Any] = ["limit": 2]
            if let before { params["before"] = before }
            let page = try #require(ok(try bob.client.call("followers", params)))
            seen += (page["users"] as? [[String: Any]] ?? []).compactMap { $0["user_id"] as? Int }
            before = page["next_before"] as? Int
            if before == nil { break }
        }
        #expect(seen == followers.reversed().map(\.id))
    }

    @Test func followCountsStayExactUnderConcurrentFollowsAndUnfollows() throws {
        let (server, port, database) = try startProtocolServer { $0.databasePoolSize = 4 }
        defer { stop(server); database.close() }
        let t = tag()
        let star = try socialUser(port, "star", handle: "star_\(t)")
        let fans = try (0..<24).map { try socialUser(port, "fan\($0)", handle: "fan\($0)_\(t)") }
        // Every fan sends follow, unfollow, follow (and the odd ones a last unfollow) without waiting; all in flight at
        // once.
        var pending: [(TestUser, [Int])] = []
        for (i, fan) in fans.enumerated() {
            var sent = [
                try fan.client.send("follow", ["user_id": star.id]),
                try fan.client.send("unfollow", ["user_id": star.id]),
                try fan.client.send("follow", ["user_id": star.id]),
            ]
            if i % 2 == 1 { sent.append(try fan.client.send("unfollow", ["user_id": star.id])) }
            pending.append((fan, sent))
        }
        for (fan, sent) in pending { for id in sent { #expect(ok(try fan.client.reply(id)) != nil) } }
        #expect(try stats(star, star).followers == 12)
        #expect(
            try scalar(database, "SELECT count(*) FROM follows WHERE followee_id = \(star.id) AND state = 'active'")
                == 12)
        #expect(try scalar(database, "SELECT follower_count FROM users WHERE id = \(star.id)") == 12)
        let wrong = try scalar(
            database,
            """
            SELECT count(*) FROM users u WHERE u.id IN (\(fans.map { String($0.id) }.joined(separator: ",")))
            AND u.following_count <> (SELECT count(*) FROM follows f WHERE f.follower_id = u.id AND f.state = 'active')
            """)
        #expect(wrong == 0)
    }

    @Test func followRateLimitAndMaxFollowing() throws {
        let (server, port, database) = try startProtocolServer {
            $0.socialGraph.followBurst = 4
            $0.socialGraph.followRefillSeconds = 3600
            $0.socialGraph.maxFollowing = 2
        }
        defer { stop(server); database.close() }
        let t = tag()
        let ann = try socialUser(port, "ann", handle: "ann_\(t)")
        let others = try (0..<3).map { try socialUser(port, "o\($0)", handle: "o\($0)_\(t)") }
        #expect(ok(try ann.client.call("follow", ["user_id": others[0].id])) != nil)
        #expect(ok(try ann.client.call("follow", ["user_id": others[1].id])) != nil)
        // Over --max-following (active and pending together): too_many, nothing changed.
        #expect(errorCode(try ann.client.call("follow", ["user_id": others[2].id])) == "too_many")
        #expect(try stats(ann, ann).following == 2)
        // The fourth follow/unfollow of the burst passes; the fifth is rate_limited with retry_after_ms.
        #expect(ok(try ann.client.call("unfollow", ["user_id": others[1].id])) != nil)
        let limited = try ann.client.call("follow", ["user_id": others[2].id])
        #expect(errorCode(limited) == "rate_limited")
        #expect(((limited["error"] as? [String: Any])?["retry_after_ms"] as? Int ?? 0) > 0)
        #expect(try stats(ann, ann).following == 1)
        // Other ops are not limited.
        #expect(ok(try ann.client.call("following")) != nil)
    }

    @Test func protectedAccountsRequestsApproveDenyAndUnprotecting() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let t = tag()
        let vip = try socialUser(port, "vip", handle: "vip_\(t)")
        let ann = try socialUser(port, "ann", handle: "ann_\(t)")
        let bob = try socialUser(port, "bob", handle: "bob_\(t)")
        let cat = try socialUser(port, "cat", handle: "cat_\(t)")
        _ = try #require(ok(try vip.client.call("profile.update", ["protected": true])))

        #expect(ok(try ann.client.call("follow", ["user_id": vip.id]))?["state"] as? String == "pending")
        #expect(try ann.client.event("follow.changed")["state"] as? String == "pending")
        #expect(ok(try bob.client.call("follow", ["user_id": vip.id]))?["state"] as? String == "pending")
        #expect(try bob.client.event("follow.changed")["state"] as? String == "pending")
        #expect(ok(try cat.client.call("follow", ["user_id": vip.id]))?["state"] as? String == "pending")
        #expect(try cat.client.event("follow.changed")["state"] as? String == "pending")
        #expect(
            try scalar(
                database,
                "SELECT count(*) FROM social_notifications WHERE user_id = \(vip.id) AND kind = 'follow_request'") == 3)
        #expect(try stats(ann, vip).followers == 0)
        // The profile (bio, stats) stays visible; the lists are not, to a non-follower.
        #expect(try profile(ann, vip)?["protected"] as? Bool == true)
        #expect(errorCode(try ann.client.call("followers", ["user_id": vip.id])) == "forbidden")

        let requests = try #require(ok(try vip.client.call("follow.requests"))?["requests"] as? [[String: Any]])
        #expect(requests.compactMap { ($0["user"] as? [String: Any])?["user_id"] as? Int } == [cat.id, bob.id, ann.id])
        #expect(requests.allSatisfy { $0["request_id"] is Int && $0["created_at"] is String })

        #expect(ok(try vip.client.call("follow.approve", ["user_id": ann.id])) != nil)
        #expect(try ann.client.event("follow.changed")["state"] as? String == "active")
        #expect(errorCode(try vip.client.call("follow.approve", ["user_id": ann.id])) == "not_found")
        #expect(ok(try vip.client.call("follow.deny", ["user_id": bob.id])) != nil)
        #expect(try bob.client.event("follow.changed")["state"] as? String == "none")
        #expect(errorCode(try vip.client.call("follow.deny", ["user_id": bob.id])) == "not_found")
        #expect(try stats(ann, vip).followers == 1)
        #expect(ids(try ann.client.call("followers", ["user_id": vip.id])) == [ann.id])

        // Un-protecting approves the rest (cat), with its event and the counts.
        _ = try #require(ok(try vip.client.call("profile.update", ["protected": false])))
        #expect(try cat.client.event("follow.changed")["state"] as? String == "active")
        #expect(try stats(ann, vip).followers == 2)
        #expect(try stats(cat, cat).following == 1)
        #expect((ok(try vip.client.call("follow.requests"))?["requests"] as? [Any])?.isEmpty == true)
        // A new follow is active at once.
        #expect(ok(try bob.client.call("follow", ["user_id": vip.id]))?["state"] as? String == "active")
    }

    @Test func blocksRemoveFollowsAndRefuseEveryGraphOpAndMessages() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let t = tag()
        let ann = try socialUser(port, "ann", handle: "ann_\(t)")
        let bob = try socialUser(port, "bob", handle: "bob_\(t)")
        let ann2 = try secondDevice(port, ann, "ann-2")
        try befriend(ann, bob)
        let sent = try #require(
            ok(try bob.client.call("messages.send", ["user_id": ann.id, "client_id": "b1", "text": "hi"])))
        let conversation = try #require(sent["conversation_id"] as? Int)
        _ = try ann.client.call("follow", ["user_id": bob.id])
        _ = try bob.client.call("follow", ["user_id": ann.id])
        #expect(try bob.client.event("follow.changed")["state"] as? String == "active")
        #expect(try ann2.event("follow.changed")["state"] as? String == "active")
        #expect(try stats(ann, ann).followers == 1)

        #expect(errorCode(try ann.client.call("block", ["user_id": ann.id])) == "bad_request")
        #expect(errorCode(try ann.client.call("block", ["user_id": 999_999_999])) == "not_found")
        #expect(ok(try ann.client.call("block", ["user_id": bob.id])) != nil)
        let rel = try ann2.event("relationship.changed")
        #expect(rel["user_id"] as? Int == bob.id && rel["blocking"] as? Bool == true && rel["muting"] as? Bool == false)
        #expect(try bob.client.event("follow.changed")["state"] as? String == "none")
        #expect(try ann2.event("follow.changed")["state"] as? String == "none")
        #expect(ok(try ann.client.call("block", ["user_id": bob.id])) != nil)  // idempotent
        #expect(try ann2.event("relationship.changed")["blocking"] as? Bool == true)
        #expect(try stats(ann, ann).followers == 0 && stats(ann, ann).following == 0)
        #expect(try scalar(database, "SELECT following_count + follower_count FROM users WHERE id = \(bob.id)") == 0)
        #expect(try scalar(database, "SELECT count(*) FROM follows WHERE \(ann.id) IN (follower_id, followee_id)") == 0)

        // The blocked user: not_found for everything about the blocker; the blocker likewise about the blocked.
        #expect(errorCode(try bob.client.call("follow", ["user_id": ann.id])) == "not_found")
        #expect(errorCode(try ann.client.call("follow", ["user_id": bob.id])) == "not_found")
        #expect(errorCode(try bob.client.call("profile.get", ["user_id": ann.id])) == "not_found")
        #expect(errorCode(try bob.client.call("profile.get", ["handle": "ann_\(t)"])) == "not_found")
        #expect(errorCode(try bob.client.call("followers", ["user_id": ann.id])) == "not_found")
        #expect(errorCode(try bob.client.call("following", ["user_id": ann.id])) == "not_found")
        #expect(errorCode(try bob.client.call("follow.approve", ["user_id": ann.id])) == "not_found")
        #expect(errorCode(try bob.client.call("follower.remove", ["user_id": ann.id])) == "not_found")
        #expect(errorCode(try bob.client.call("conversations.direct", ["user_id": ann.id])) == "not_found")
        #expect(errorCode(try ann.client.call("conversations.direct", ["user_id": bob.id])) == "not_found")
        // The existing direct conversation refuses both ways (friends still).
        let refused = try bob.client.call(
            "messages.send", ["conversation_id": conversation, "client_id": "b2", "text": "hello?"])
        #expect(errorCode(refused) == "forbidden")
        #expect(((refused["error"] as? [String: Any])?["message"] as? String) == "you cannot message this user")
        #expect(
            errorCode(
                try ann.client.call("messages.send", ["conversation_id": conversation, "client_id": "a2", "text": "x"]))
                == "forbidden")
        #expect(ids(try ann.client.call("blocks.list")) == [bob.id])
        #expect(try profile(ann, bob) == nil)

        // Unblocking restores messaging and profiles, not the follows.
        #expect(ok(try ann.client.call("unblock", ["user_id": bob.id])) != nil)
        #expect(try ann2.event("relationship.changed")["blocking"] as? Bool == false)
        #expect(
            ok(
                try bob.client.call(
                    "messages.send", ["conversation_id": conversation, "client_id": "b3", "text": "back"])) != nil)
        #expect(try profile(bob, ann) != nil)
        #expect(try stats(ann, ann).followers == 0)
        #expect(ids(try ann.client.call("blocks.list")).isEmpty)

        // Mutes: silent, listed, idempotent; a muted user's follow no longer notifies.
        let cat = try socialUser(port, "cat", handle: "cat_\(t)")
        #expect(ok(try ann.client.call("mute", ["user_id": cat.id])) != nil)
        #expect(try ann2.event("relationship.changed")["muting"] as? Bool == true)
        #expect(ok(try ann.client.call("mute", ["user_id": cat.id])) != nil)
        #expect(try ann2.event("relationship.changed")["muting"] as? Bool == true)
        #expect(ids(try ann.client.call("mutes.list")) == [cat.id])
        _ = try #require(ok(try cat.client.call("follow", ["user_id": ann.id])))
        #expect(
            try scalar(
                database, "SELECT count(*) FROM social_notifications WHERE user_id = \(ann.id) AND actor_id = \(cat.id)"
            ) == 0)
        #expect(((try profile(ann, cat))?["relationship"] as? [String: Any])?["muting"] as? Bool == true)
        #expect(ok(try ann.client.call("unmute", ["user_id": cat.id])) != nil)
        #expect(ids(try ann.client.call("mutes.list")).isEmpty)
        #expect(errorCode(try ann.client.call("mute", ["user_id": ann.id])) == "bad_request")
    }

    @Test func directMessagePolicyMatrix() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let t = tag()
        let ann = try socialUser(port, "ann", handle: "ann_\(t)")
        let bob = try socialUser(port, "bob", handle: "bob_\(t)")
        let noHandle = try socialUser(port, "nick", handle: nil)
        let friend = try socialUser(port, "fred", handle: nil)
        try befriend(ann, friend)
        func direct(_ from: TestUser) throws -> String? {
            let r = try from.client.call("conversations.direct", ["user_id": ann.id])
            return ok(r) != nil ? "ok" : errorCode(r)
        }
        // friends (default): only friends.
        #expect(try direct(bob) == "not_friends")
        #expect(try direct(friend) == "ok")
        // mutuals: friends, or both follow actively.
        _ = try #require(ok(try ann.client.call("profile.update", ["dm_policy": "mutuals"])))
        #expect(try direct(bob) == "not_friends")
        _ = try bob.client.call("follow", ["user_id": ann.id])
        #expect(try direct(bob) == "not_friends")
        _ = try ann.client.call("follow", ["user_id": bob.id])
        #expect(try direct(bob) == "ok")
        #expect(try direct(friend) == "ok")
        // Sending in the conversation works while mutual; after an unfollow the existing conversation refuses (not
        // friends).
        let sent = try bob.client.call("messages.send", ["user_id": ann.id, "client_id": "m1", "text": "hi ann"])
        #expect(ok(sent) != nil)
        // anyone: any user with a handle, or a friend.
        _ = try #require(ok(try ann.client.call("profile.update", ["dm_policy": "anyone"])))
        #expect(try direct(noHandle) == "not_friends")
        _ = try #require(ok(try noHandle.client.call("handle.set", ["handle": "nick_\(t)"])))
        #expect(try direct(noHandle) == "ok")
        let opened = try #require(
            ok(try noHandle.client.call("messages.send", ["user_id": ann.id, "client_id": "n1", "text": "hello"])))
        // The one written to answers in that conversation (its own policy admitted the pair).
        #expect(
            ok(
                try ann.client.call(
                    "messages.send",
                    ["conversation_id": opened["conversation_id"] as? Int ?? 0, "client_id": "a1", "text": "hi"]))
                != nil)
        // Blocked: never, whatever the policy (and even for a friend).
        _ = try #require(ok(try ann.client.call("block", ["user_id": noHandle.id])))
        #expect(try direct(noHandle) == "not_found")
        #expect(
            errorCode(
                try noHandle.client.call("messages.send", ["user_id": ann.id, "client_id": "n2", "text": "again"]))
                == "not_found")
        _ = try #require(ok(try friend.client.call("block", ["user_id": ann.id])))
        #expect(try direct(friend) == "not_found")
        _ = database
    }

    @Test func accountDeletionRemovesSocialDataWithExactCountsAndExportHasIt() throws {
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("sb-exports-\(UUID().uuidString)")
            .path
        let (server, port, database) = try startProtocolServer { $0.account.exportDirectory = exports }
        defer { stop(server); database.close() }
        let t = tag()
        let ann = try socialUser(port, "ann", handle: "ann_\(t)")
        let bob = try socialUser(port, "bob", handle: "bob_\(t)")
        let cat = try socialUser(port, "cat", handle: "cat_\(t)")
        _ = try ann.client.call("follow", ["user_id": bob.id])
        _ = try cat.client.call("follow", ["user_id": ann.id])
        _ = try bob.client.call("follow", ["user_id": ann.id])
        _ = try ann.client.call("mute", ["user_id": cat.id])
        _ = try bob.client.call("block", ["user_id": ann.id])  // removes ann<->bob follows
        _ = try ann.client.call("follow", ["user_id": cat.id])
        _ = try ann.client.call("profile.update", ["bio": "bye"])
        // Posts through the store (the post ops are another part's): one by bob liked by ann, one by ann liked by cat.
        let (annId, bobId, catId) = (Int64(ann.id), Int64(bob.id), Int64(cat.id))
        try database.pool.connectionForTests { db in
            for (author, text) in [(bobId, "bob's"), (annId, "ann's")] {
                try db.execute(
                    cached: """
                        WITH c AS (UPDATE post_clock SET seq = seq + 1 RETURNING seq)
                        INSERT INTO posts (seq, author_id, text) SELECT seq, $1, $2 FROM c
                        """, [.int(author), .text(text)])
                try db.execute(cached: "UPDATE users SET post_count = post_count + 1 WHERE id = $1", [.int(author)])
            }
            try db.execute(
                cached: """
                    INSERT INTO likes (post_id, user_id) SELECT id, $2 FROM posts WHERE author_id = $1
                    """, [.int(bobId), .int(annId)])
            try db.execute(cached: "UPDATE posts SET like_count = 1 WHERE author_id = $1", [.int(bobId)])
            try db.execute(
                cached: "INSERT INTO likes (post_id, user_id) SELECT id, $2 FROM posts WHERE author_id = $1",
                [.int(annId), .int(catId)])
            try db.execute(cached: "UPDATE posts SET like_count = 1 WHERE author_id = $1", [.int(annId)])
        }

        // Export first: social.json and the social fields of profile.json.
        let exportId = try #require(
            (ok(try ann.client.call("account.export"))?["export"] as? [String: Any])?["export_id"] as? Int)
        _ = try ann.client.event("account.export_ready")
        let download = try http(port, "GET", "/export/\(exportId)", token: ann.token)
        #expect(download.status == 200)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sb-social-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(download.body).write(to: folder.appendingPathComponent("e.tar.gz"))
        #expect(
            try runProcess("/bin/tar", ["-xzf", folder.appendingPathComponent("e.tar.gz").path, "-C", folder.path])
                .status == 0)
        let root = folder.appendingPathComponent("switchboard-export-\(exportId)")
        let social = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("social.json")))
                as? [String: Any])
        #expect(social["handle"] as? String == "ann_\(t)")
        #expect(social["bio"] as? String == "bye")
        #expect((social["following"] as? [[String: Any]])?.compactMap { $0["user_id"] as? Int } == [cat.id])
        #expect((social["followers"] as? [[String: Any]])?.compactMap { $0["user_id"] as? Int } == [cat.id])
        #expect((social["mutes"] as? [[String: Any]])?.compactMap { $0["user_id"] as? Int } == [cat.id])
        #expect((social["posts"] as? [[String: Any]])?.first?["text"] as? String == "ann's")
        #expect((social["likes"] as? [Any])?.count == 1)
        let profileJSON = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("profile.json")))
                as? [String: Any])
        #expect(profileJSON["handle"] as? String == "ann_\(t)")

        // Deletion: handle freed at once; the job removes the rest with the others' counters exact.
        #expect(ok(try ann.client.call("account.delete", ["password": ann.password])) != nil)
        let again = try socialUser(port, "ann again", handle: "ANN_\(t)")
        #expect(
            waitUntil(timeout: 30) {
                (try? scalar(
                    database,
                    "SELECT count(*) FROM account_deletions WHERE user_id = \(ann.id) AND finished_at IS NOT NULL"))
                    == 1
            })
        #expect(try scalar(database, "SELECT count(*) FROM follows WHERE \(ann.id) IN (follower_id, followee_id)") == 0)
        #expect(try scalar(database, "SELECT follower_count + following_count FROM users WHERE id = \(cat.id)") == 0)
        #expect(try scalar(database, "SELECT follower_count + following_count FROM users WHERE id = \(bob.id)") == 0)
        #expect(try scalar(database, "SELECT count(*) FROM blocks WHERE \(ann.id) IN (blocker_id, blocked_id)") == 0)
        #expect(try scalar(database, "SELECT count(*) FROM mutes WHERE \(ann.id) IN (muter_id, muted_id)") == 0)
        #expect(try scalar(database, "SELECT count(*) FROM likes WHERE user_id = \(ann.id)") == 0)
        #expect(try scalar(database, "SELECT like_count FROM posts WHERE author_id = \(bob.id)") == 0)
        #expect(
            try scalar(
                database,
                "SELECT count(*) FROM posts WHERE author_id = \(ann.id) AND deleted_at IS NOT NULL"
                    + " AND text = '' AND deleted_seq IS NOT NULL"
            ) == 1)
        #expect(
            try scalar(database, "SELECT count(*) FROM social_notifications WHERE \(ann.id) IN (user_id, actor_id)")
                == 0)
        #expect(try scalar(database, "SELECT count(*) FROM users WHERE id = \(ann.id) AND handle IS NULL") == 1)
        #expect(try profile(cat, again)?["handle"] as? String == "ANN_\(t)")
        #expect(errorCode(try cat.client.call("follow", ["user_id": ann.id])) == "not_found")
    }
}
