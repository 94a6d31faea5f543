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

/// One integer from the test database (-1 when none).
func momentsSQLInt(_ database: DatabaseRuntime, _ sql: String) -> Int64 {
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

/// A stored photo of `owner`'s, made in SQL (the HTTP upload is PhotoHTTPTests' subject): its row and, with
/// `renditions`, a display JPEG of `bytes`.
func testPhoto(
    _ database: DatabaseRuntime, owner: Int, width: Int = 4032, height: Int = 3024, renditions: [UInt8]? = nil
)
    throws -> Int
{
    let sha = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    let id = momentsSQLInt(
        database,
        """
        INSERT INTO photos (owner_id, sha256, format, width, height, color, has_alpha)
        VALUES (\(owner), '\\x\(sha)'::bytea, 'jpeg', \(width), \(height), '#a3b1c2', false) RETURNING id
        """)
    guard id > 0 else { throw TestSQLError(description: "photo not inserted") }
    if let bytes = renditions {
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        try runSQL(
            database,
            """
            INSERT INTO photo_renditions (photo_id, size, format, width, height, bytes, sha256)
            VALUES (\(id), 'display', 'jpeg', 1280, 960, '\\x\(hex)'::bytea, '\\x\(sha)'::bytea)
            """)
    }
    return Int(id)
}

func momentOf(_ reply: [String: Any]) -> [String: Any]? { ok(reply)?["moment"] as? [String: Any] }
func momentIds(_ reply: [String: Any]) -> [Int] {
    ((ok(reply)?["moments"] as? [[String: Any]]) ?? []).compactMap { $0["moment_id"] as? Int }
}

@Suite("Moments over the real protocol", .serialized)
struct MomentsTests {
    @Test func createFeedGetLikeDeleteForOwnerFriendStrangerFollowerAndBlocked() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")  // a stranger
        let dan = try makeUser(port, "dan")  // a friend Ann blocks
        let eve = try makeUser(port, "eve")  // follows Ann, not a friend
        try befriend(ann, bob)
        try befriend(ann, dan)
        try runSQL(
            database, "INSERT INTO follows (follower_id, followee_id, state) VALUES (\(eve.id), \(ann.id), 'active')")
        let bob2 = try secondDevice(port, bob, "bob-2")
        let ann2 = try secondDevice(port, ann, "ann-2")
        let p1 = try testPhoto(database, owner: ann.id)
        let p2 = try testPhoto(database, owner: ann.id, width: 512, height: 512)
        let catPhoto = try testPhoto(database, owner: cat.id)

        // Refused: no photos, too many, repeated, someone else's, a caption too long; nothing stored.
        #expect(errorCode(try ann.client.call("moments.create", ["photo_ids": [Int]()])) == "bad_request")
        #expect(
            errorCode(try ann.client.call("moments.create", ["photo_ids": Array(repeating: p1, count: 10)]))
                == "bad_request")
        #expect(errorCode(try ann.client.call("moments.create", ["photo_ids": [p1, p1]])) == "bad_request")
        #expect(errorCode(try ann.client.call("moments.create", ["photo_ids": [p1, catPhoto]])) == "not_found")
        #expect(
            errorCode(
                try ann.client.call(
                    "moments.create", ["photo_ids": [p1], "caption": String(repeating: "é", count: 501)]))
                == "bad_request")
        #expect(errorCode(try cat.client.call("moments.create", ["photo_ids": [p1]])) == "not_found")
        #expect(momentsSQLInt(database, "SELECT count(*) FROM moments WHERE owner_id IN (\(ann.id), \(cat.id))") == 0)

        // Created: caption trimmed, photos in the order given; a resend with the client id returns the same moment.
        let moment = try #require(
            momentOf(
                try ann.client.call(
                    "moments.create", ["photo_ids": [p2, p1], "caption": "  Garden today \n", "client_id": "m-1"])))
        let id = try #require(moment["moment_id"] as? Int)
        #expect(moment["caption"] as? String == "Garden today")
        #expect((moment["photos"] as? [[String: Any]])?.map { $0["photo_id"] as? Int } == [p2, p1])
        let first = try #require((moment["photos"] as? [[String: Any]])?.first)
        #expect(
            first["width"] as? Int == 512 && first["color"] as? String == "#a3b1c2"
                && first["has_alpha"] as? Bool == false)
        #expect((moment["owner"] as? [String: Any])?["user_id"] as? Int == ann.id)
        #expect(
            moment["like_count"] as? Int == 0 && moment["liked"] as? Bool == false
                && (moment["recent_likers"] as? [Any])?.isEmpty == true)
        #expect(
            momentOf(try ann.client.call("moments.create", ["photo_ids": [p2, p1], "client_id": "m-1"]))?["moment_id"]
                as? Int == id)
        #expect(momentsSQLInt(database, "SELECT count(*) FROM moments WHERE owner_id = \(ann.id)") == 1)

        // Live: the friend's two devices and the owner's other device get moment.created (once); the stranger and
        // the follower do not. Barriers: the request pushes its events before it answers, so by the creation's reply
        // anything for them was on their loops, ahead of a ping.
        for client in [bob.client, bob2, ann2] {
            let e = try client.event("moment.created")
            #expect((e["moment"] as? [String: Any])?["moment_id"] as? Int == id)
        }
        #expect(try bob2.allBeforeBarrier("moment.created").isEmpty)
        #expect(try cat.client.allBeforeBarrier("moment.created").isEmpty)
        #expect(try eve.client.allBeforeBarrier("moment.created").isEmpty)

        // Feed and get: owner and friends; a stranger and a follower see nothing (an empty feed is not an error).
        #expect(momentIds(try ann.client.call("moments.feed")) == [id])
        #expect(momentIds(try bob.client.call("moments.feed")) == [id])
        #expect(momentIds(try dan.client.call("moments.feed")) == [id])
        let empty = try #require(ok(try cat.client.call("moments.feed")))
        #expect((empty["moments"] as? [Any])?.isEmpty == true && empty["next_before"] is NSNull)
        #expect(momentIds(try eve.client.call("moments.feed")) == [])
        #expect(
            momentOf(try bob.client.call("moments.get", ["moment_id": id]))?["caption"] as? String == "Garden today")
        for stranger in [cat, eve] {
            #expect(errorCode(try stranger.client.call("moments.get", ["moment_id": id])) == "not_found")
            #expect(errorCode(try stranger.client.call("moments.like", ["moment_id": id])) == "not_found")
            #expect(errorCode(try stranger.client.call("moments.likers", ["moment_id": id])) == "not_found")
            #expect(errorCode(try stranger.client.call("moments.delete", ["moment_id": id])) == "not_found")
        }
        #expect(errorCode(try ann.client.call("moments.get", ["moment_id": id + 1000])) == "not_found")

        // Likes: idempotent and exact; moment.liked to the owner's devices and the liker's other device.
        let liked = try #require(ok(try bob.client.call("moments.like", ["moment_id": id])))
        #expect(liked["like_count"] as? Int == 1 && liked["liked"] as? Bool == true && liked["moment_id"] as? Int == id)
        #expect(ok(try bob.client.call("moments.like", ["moment_id": id]))?["like_count"] as? Int == 1)
        for client in [ann.client, ann2, bob2] {
            let e = try client.event("moment.liked")
            #expect(e["moment_id"] as? Int == id && e["like_count"] as? Int == 1 && e["liked"] as? Bool == true)
            #expect((e["user"] as? [String: Any])?["user_id"] as? Int == bob.id)
        }
        #expect(try cat.client.allBeforeBarrier("moment.liked").isEmpty)  // pushed before the like's reply
        #expect(ok(try ann.client.call("moments.like", ["moment_id": id]))?["like_count"] as? Int == 2)
        let seen = try #require(momentOf(try bob.client.call("moments.get", ["moment_id": id])))
        #expect(seen["liked"] as? Bool == true && seen["like_count"] as? Int == 2)
        #expect((seen["recent_likers"] as? [[String: Any]])?.map { $0["user_id"] as? Int } == [ann.id, bob.id])
        let likers = try #require(ok(try dan.client.call("moments.likers", ["moment_id": id, "limit": 1])))
        #expect((likers["likers"] as? [[String: Any]])?.map { $0["user_id"] as? Int } == [ann.id])
        let cursor = try #require(likers["next_before"] as? String)
        let rest = try #require(
            ok(try dan.client.call("moments.likers", ["moment_id": id, "before": cursor, "limit": 1])))
        #expect((rest["likers"] as? [[String: Any]])?.map { $0["user_id"] as? Int } == [bob.id])
        #expect(rest["next_before"] is NSNull)
        #expect(
            errorCode(try dan.client.call("moments.likers", ["moment_id": id, "before": "nonsense"])) == "bad_request")
        let unliked = try #require(ok(try bob.client.call("moments.unlike", ["moment_id": id])))
        #expect(unliked["like_count"] as? Int == 1 && unliked["liked"] as? Bool == false)
        #expect(ok(try bob.client.call("moments.unlike", ["moment_id": id]))?["like_count"] as? Int == 1)
        #expect(momentsSQLInt(database, "SELECT like_count FROM moments WHERE id = \(id)") == 1)

        // A block ends a friend's view at once.
        try runSQL(database, "INSERT INTO blocks (blocker_id, blocked_id) VALUES (\(ann.id), \(dan.id))")
        #expect(momentIds(try dan.client.call("moments.feed")) == [])
        #expect(errorCode(try dan.client.call("moments.get", ["moment_id": id])) == "not_found")
        #expect(errorCode(try dan.client.call("moments.like", ["moment_id": id])) == "not_found")
        _ = try #require(momentOf(try ann.client.call("moments.create", ["photo_ids": [p1]])))
        _ = try bob.client.event("moment.created")
        // The first moment's only (barrier: pushed before the creation's reply).
        #expect(try dan.client.allBeforeBarrier("moment.created").count == 1)

        // Delete: only the owner; moment.deleted to the friend; gone for real with its likes.
        #expect(errorCode(try bob.client.call("moments.delete", ["moment_id": id])) == "not_found")
        #expect(ok(try ann.client.call("moments.delete", ["moment_id": id])) != nil)
        let deleted = try bob.client.event("moment.deleted")
        #expect(deleted["moment_id"] as? Int == id && deleted["owner_id"] as? Int == ann.id)
        #expect(errorCode(try ann.client.call("moments.get", ["moment_id": id])) == "not_found")
        #expect(errorCode(try ann.client.call("moments.delete", ["moment_id": id])) == "not_found")
        #expect(momentsSQLInt(database, "SELECT count(*) FROM moment_likes WHERE moment_id = \(id)") == 0)
        #expect(momentsSQLInt(database, "SELECT count(*) FROM photos WHERE owner_id = \(ann.id)") == 2)
    }

    @Test func theFeedPagesNewestFirstWithoutRepeatsOrGaps() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        try befriend(ann, bob)
        let annPhoto = try testPhoto(database, owner: ann.id)
        let bobPhoto = try testPhoto(database, owner: bob.id)
        let catPhoto = try testPhoto(database, owner: cat.id)
        var expected: [Int] = []
        for i in 0..<23 {
            let (user, photo) = i % 2 == 0 ? (ann, annPhoto) : (bob, bobPhoto)
            expected.append(
                try #require(
                    momentOf(try user.client.call("moments.create", ["photo_ids": [photo], "caption": "\(i)"]))?[
                        "moment_id"] as? Int))
            if i % 5 == 0 { _ = try cat.client.call("moments.create", ["photo_ids": [catPhoto]]) }
        }
        var seen: [Int] = []
        var before: Int? = nil
        var pages = 0
        for _ in 0..<10 {
            var params: [String: Any] = [:]
            if let before { params["before"] = before }
            let page = try #require(ok(try bob.client.call("moments.feed", params)))
            let ids = ((page["moments"] as? [[String: Any]]) ?? []).compactMap { $0["moment_id"] as? Int }
            pages += 1
            #expect(ids.count <= 10)
            seen += ids
            guard let next = page["next_before"] as? Int else { break }
            before = next
        }
        #expect(pages == 3)
        #expect(seen == expected.reversed())
        #expect(momentIds(try bob.client.call("moments.feed", ["limit": 50])) == expected.reversed())
        #expect(errorCode(try bob.client.call("moments.feed", ["limit": 0])) == "bad_request")
        #expect(errorCode(try bob.client.call("moments.feed", ["limit": 51])) == "bad_request")
        #expect(momentIds(try cat.client.call("moments.feed")).count == 5)
    }

    @Test func likeCountsAreExactUnderConcurrentLikes() throws {
        let (server, port, database) = try startProtocolServer { $0.databasePoolSize = 4 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        var friends: [TestUser] = []
        for i in 0..<8 {
            let friend = try makeUser(port, "friend\(i)")
            try befriend(ann, friend)
            friends.append(friend)
        }
        let photo = try testPhoto(database, owner: ann.id)
        let id = try #require(
            momentOf(try ann.client.call("moments.create", ["photo_ids": [photo]]))?["moment_id"] as? Int)
        let clients = friends.map(\.client)
        func everyone(_ op: String, times: Int) -> [JobResults] {
            concurrently(
                clients.map { client in
                    { results in
                        for _ in 0..<times {
                            let reply = try client.call(op, ["moment_id": id])
                            if ok(reply) == nil { results.failures.append("\(reply)") }
                        }
                    }
                })
        }
        #expect(everyone("moments.like", times: 3).flatMap(\.failures) == [])
        #expect(momentsSQLInt(database, "SELECT like_count FROM moments WHERE id = \(id)") == 8)
        #expect(momentOf(try ann.client.call("moments.get", ["moment_id": id]))?["like_count"] as? Int == 8)
        #expect(everyone("moments.unlike", times: 2).flatMap(\.failures) == [])
        #expect(momentsSQLInt(database, "SELECT like_count FROM moments WHERE id = \(id)") == 0)
        #expect(momentsSQLInt(database, "SELECT count(*) FROM moment_likes WHERE moment_id = \(id)") == 0)
    }
}
