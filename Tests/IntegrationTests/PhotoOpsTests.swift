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

@Suite("Photo ops, avatars and photos in posts over the real protocol", .serialized)
struct PhotoOpsTests {
    @Test func photosMinePagesAndPhotosDeleteCascadesToMomentsPostsAndTheAvatar() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        try runSQL(database, "UPDATE users SET handle = 'ann_\(ann.id)' WHERE id = \(ann.id)")
        var mine: [Int] = []
        for _ in 0..<5 { mine.append(try testPhoto(database, owner: ann.id)) }
        let bobPhoto = try testPhoto(database, owner: bob.id)

        // photos.mine: mine only, newest first, paged.
        let page = try #require(ok(try ann.client.call("photos.mine", ["limit": 3])))
        let firstIds = ((page["photos"] as? [[String: Any]]) ?? []).compactMap { $0["photo_id"] as? Int }
        #expect(firstIds == Array(mine.reversed().prefix(3)))
        let next = try #require(page["next_before"] as? Int)
        let rest = try #require(ok(try ann.client.call("photos.mine", ["before": next])))
        #expect(
            ((rest["photos"] as? [[String: Any]]) ?? []).compactMap { $0["photo_id"] as? Int }
                == Array(mine.reversed().suffix(2)))
        #expect(rest["next_before"] is NSNull)
        #expect(errorCode(try ann.client.call("photos.mine", ["limit": 101])) == "bad_request")
        #expect(
            ((ok(try bob.client.call("photos.mine"))?["photos"] as? [[String: Any]]) ?? []).compactMap {
                $0["photo_id"] as? Int
            } == [bobPhoto])

        // References: a moment with one photo, a moment with two, a post, the avatar.
        let lone = try #require(
            momentOf(try ann.client.call("moments.create", ["photo_ids": [mine[0]]]))?["moment_id"] as? Int)
        let pair = try #require(
            momentOf(try ann.client.call("moments.create", ["photo_ids": [mine[0], mine[1]]]))?["moment_id"] as? Int)
        let post = try #require(
            ok(try ann.client.call("post.create", ["text": "look", "photo_ids": [mine[1], mine[0]]]))?["post"]
                as? [String: Any])
        let postId = try #require(post["post_id"] as? Int)
        #expect(ok(try ann.client.call("profile.avatar.set", ["photo_id": mine[0]])) != nil)
        _ = try bob.client.event("profile.updated")

        // Someone else's photo: not_found, nothing changes.
        #expect(errorCode(try bob.client.call("photos.delete", ["photo_id": mine[0]])) == "not_found")
        #expect(errorCode(try ann.client.call("photos.delete", ["photo_id": 999_999_999])) == "not_found")

        // Deleting it: gone from both moments (the lone one deleted, with moment.deleted), from the post, and the
        // avatar cleared.
        #expect(ok(try ann.client.call("photos.delete", ["photo_id": mine[0]])) != nil)
        #expect(try bob.client.event("moment.deleted")["moment_id"] as? Int == lone)
        let profile = try #require(try bob.client.event("profile.updated")["profile"] as? [String: Any])
        #expect(profile["user_id"] as? Int == ann.id && profile["avatar"] == nil)
        #expect(errorCode(try ann.client.call("moments.get", ["moment_id": lone])) == "not_found")
        #expect(
            (momentOf(try bob.client.call("moments.get", ["moment_id": pair]))?["photos"] as? [[String: Any]])?.map {
                $0["photo_id"] as? Int
            } == [mine[1]])
        let after = try #require(ok(try bob.client.call("post.get", ["post_id": postId]))?["post"] as? [String: Any])
        #expect((after["photos"] as? [[String: Any]])?.map { $0["photo_id"] as? Int } == [mine[1]])
        #expect(momentsSQLInt(database, "SELECT count(*) FROM photos WHERE id = \(mine[0])") == 0)
        #expect(
            momentsSQLInt(database, "SELECT count(*) FROM users WHERE id = \(ann.id) AND avatar_photo_id IS NOT NULL")
                == 0)
    }

    @Test func avatarsSetAndRemovedReachFriendsFollowersAndOwnDevicesNotStrangers() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")  // friend
        let cat = try makeUser(port, "cat")  // stranger
        let eve = try makeUser(port, "eve")  // active follower
        try befriend(ann, bob)
        try runSQL(database, "UPDATE users SET handle = 'ann_\(ann.id)' WHERE id = \(ann.id)")
        try runSQL(
            database, "INSERT INTO follows (follower_id, followee_id, state) VALUES (\(eve.id), \(ann.id), 'active')")
        let ann2 = try secondDevice(port, ann, "ann-2")
        let photo = try testPhoto(database, owner: ann.id, width: 800, height: 600)
        let catPhoto = try testPhoto(database, owner: cat.id)

        #expect(errorCode(try ann.client.call("profile.avatar.set", ["photo_id": catPhoto])) == "not_found")
        #expect(errorCode(try cat.client.call("profile.avatar.set", ["photo_id": photo])) == "not_found")
        let own = try #require(
            ok(try ann.client.call("profile.avatar.set", ["photo_id": photo]))?["profile"] as? [String: Any])
        #expect((own["avatar"] as? [String: Any])?["photo_id"] as? Int == photo)
        #expect((own["avatar"] as? [String: Any])?["width"] as? Int == 800)
        #expect(own["phone"] as? String == ann.phone)
        for client in [bob.client, eve.client, ann2] {
            let profile = try #require(try client.event("profile.updated")["profile"] as? [String: Any])
            #expect(
                profile["user_id"] as? Int == ann.id
                    && (profile["avatar"] as? [String: Any])?["photo_id"] as? Int == photo)
            #expect(profile["phone"] == nil)
        }
        // Barrier: the request pushes `profile.updated` before it answers.
        #expect(try cat.client.allBeforeBarrier("profile.updated").isEmpty)

        // The avatar in profiles, the friends list, and social users (a post's author).
        let seen = try #require(
            ok(try bob.client.call("profile.get", ["user_id": ann.id]))?["profile"] as? [String: Any])
        #expect((seen["avatar"] as? [String: Any])?["photo_id"] as? Int == photo)
        let friends = try #require(ok(try bob.client.call("friends.list"))?["friends"] as? [[String: Any]])
        #expect(friends.first { $0["user_id"] as? Int == ann.id }?["avatar_photo_id"] as? Int == photo)
        let annFriends = try #require(ok(try ann.client.call("friends.list"))?["friends"] as? [[String: Any]])
        #expect(annFriends.first?["avatar_photo_id"] == nil)
        let post = try #require(ok(try ann.client.call("post.create", ["text": "hi"]))?["post"] as? [String: Any])
        #expect((post["author"] as? [String: Any])?["avatar_photo_id"] as? Int == photo)
        #expect(post["photos"] == nil)

        // Removed: idempotent, the event again.
        let removed = try #require(ok(try ann.client.call("profile.avatar.remove"))?["profile"] as? [String: Any])
        #expect(removed["avatar"] == nil)
        #expect(
            try bob.client.event("profile.updated")["profile"].map { ($0 as? [String: Any])?["avatar"] == nil } == true)
        #expect(ok(try ann.client.call("profile.avatar.remove")) != nil)
        #expect(
            ok(try bob.client.call("profile.get", ["user_id": ann.id]))?["profile"].map {
                ($0 as? [String: Any])?["avatar"] == nil
            } == true)
    }

    @Test func postsCarryUpToFourOwnPhotosInOrder() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        for user in [ann, bob, cat] {
            try runSQL(database, "UPDATE users SET handle = 'u\(user.id)' WHERE id = \(user.id)")
        }
        try runSQL(
            database, "INSERT INTO follows (follower_id, followee_id, state) VALUES (\(bob.id), \(ann.id), 'active')")
        var photos: [Int] = []
        for _ in 0..<5 { photos.append(try testPhoto(database, owner: ann.id)) }
        let catPhoto = try testPhoto(database, owner: cat.id)

        #expect(errorCode(try ann.client.call("post.create", ["text": "five", "photo_ids": photos])) == "bad_request")
        #expect(
            errorCode(try ann.client.call("post.create", ["text": "twice", "photo_ids": [photos[0], photos[0]]]))
                == "bad_request")
        #expect(
            errorCode(try ann.client.call("post.create", ["text": "hers", "photo_ids": [catPhoto]])) == "not_found")
        #expect(
            errorCode(try cat.client.call("post.create", ["text": "mine?", "photo_ids": [photos[0]]])) == "not_found")
        #expect(errorCode(try ann.client.call("post.create", ["text": ""])) == "invalid_text")
        #expect(momentsSQLInt(database, "SELECT count(*) FROM posts WHERE author_id IN (\(ann.id), \(cat.id))") == 0)

        // With photos the text may be empty; the photos in order in every read and in home.
        let post = try #require(
            ok(try ann.client.call("post.create", ["photo_ids": [photos[3], photos[1], photos[2], photos[0]]]))?["post"]
                as? [String: Any])
        let id = try #require(post["post_id"] as? Int)
        let order = [photos[3], photos[1], photos[2], photos[0]]
        #expect(post["text"] as? String == "")
        #expect((post["photos"] as? [[String: Any]])?.map { $0["photo_id"] as? Int } == order)
        let got = try #require(ok(try bob.client.call("post.get", ["post_id": id]))?["post"] as? [String: Any])
        #expect((got["photos"] as? [[String: Any]])?.map { $0["photo_id"] as? Int } == order)
        let home = try #require(ok(try bob.client.call("timeline.home"))?["posts"] as? [[String: Any]])
        #expect((home.first?["photos"] as? [[String: Any]])?.map { $0["photo_id"] as? Int } == order)
        // A repost carries the original with its photos.
        let repost = try #require(ok(try bob.client.call("post.repost", ["post_id": id]))?["post"] as? [String: Any])
        #expect(((repost["repost_of"] as? [String: Any])?["photos"] as? [[String: Any]])?.count == 4)
    }

    @Test func theExportHasPhotosAndMomentsAndDeletionRemovesThemAndTheLikesCounts() throws {
        let exports = FileManager.default.temporaryDirectory.appendingPathComponent("sb-exports-\(UUID().uuidString)")
            .path
        let (server, port, database) = try startProtocolServer { $0.account.exportDirectory = exports }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        try befriend(ann, bob)
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + Array("not really a jpeg".utf8) + [0xFF, 0xD9]
        let photo = try testPhoto(database, owner: ann.id, renditions: jpeg)
        let bare = try testPhoto(database, owner: ann.id)
        let mine = try #require(
            momentOf(try ann.client.call("moments.create", ["photo_ids": [photo, bare], "caption": "export me"]))?[
                "moment_id"] as? Int)
        let bobPhoto = try testPhoto(database, owner: bob.id)
        let bobs = try #require(
            momentOf(try bob.client.call("moments.create", ["photo_ids": [bobPhoto]]))?["moment_id"] as? Int)
        #expect(ok(try ann.client.call("moments.like", ["moment_id": bobs]))?["like_count"] as? Int == 1)
        #expect(ok(try ann.client.call("profile.avatar.set", ["photo_id": photo])) != nil)

        // The export: moments.json and photos/<id>.jpg (the display JPEG's bytes).
        let started = try #require(ok(try ann.client.call("account.export"))?["export"] as? [String: Any])
        let exportId = try #require(started["export_id"] as? Int)
        _ = try ann.client.event("account.export_ready")
        let download = try http(port, "GET", "/export/\(exportId)", token: ann.token)
        #expect(download.status == 200)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-export-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(download.body).write(to: folder.appendingPathComponent("export.tar.gz"))
        #expect(
            try runProcess(
                "/bin/tar", ["-xzf", folder.appendingPathComponent("export.tar.gz").path, "-C", folder.path]
            ).status == 0)
        let root = folder.appendingPathComponent("switchboard-export-\(exportId)")
        let exported = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("moments.json")))
                as? [String: Any])
        #expect(((exported["moments"] as? [[String: Any]]) ?? []).map { $0["moment_id"] as? Int } == [mine])
        #expect(((exported["moments"] as? [[String: Any]])?.first?["caption"]) as? String == "export me")
        #expect(
            Set(((exported["photos"] as? [[String: Any]]) ?? []).compactMap { $0["photo_id"] as? Int }) == [
                photo, bare,
            ])
        #expect(Array(try Data(contentsOf: root.appendingPathComponent("photos/\(photo).jpg"))) == jpeg)

        // Deletion: the moments, the likes (Bob's moment's count goes down), the photos, the uploads.
        try runSQL(
            database,
            "INSERT INTO uploads (id, owner_id, kind, length, received, metadata) "
                + "VALUES ('\(UUID().uuidString)', \(ann.id), 'photo', 10, 0, '')"
        )
        #expect(ok(try ann.client.call("account.delete", ["password": ann.password])) != nil)
        #expect(
            waitUntil(timeout: 30) {
                momentsSQLInt(
                    database,
                    "SELECT count(*) FROM account_deletions WHERE user_id = \(ann.id) AND finished_at IS NOT NULL") == 1
            })
        #expect(momentsSQLInt(database, "SELECT count(*) FROM moments WHERE owner_id = \(ann.id)") == 0)
        #expect(momentsSQLInt(database, "SELECT count(*) FROM photos WHERE owner_id = \(ann.id)") == 0)
        #expect(momentsSQLInt(database, "SELECT count(*) FROM uploads WHERE owner_id = \(ann.id)") == 0)
        #expect(momentsSQLInt(database, "SELECT count(*) FROM moment_likes WHERE user_id = \(ann.id)") == 0)
        #expect(momentsSQLInt(database, "SELECT like_count FROM moments WHERE id = \(bobs)") == 0)
        #expect(
            momentsSQLInt(database, "SELECT count(*) FROM users WHERE id = \(ann.id) AND avatar_photo_id IS NOT NULL")
                == 0)
        #expect(momentOf(try bob.client.call("moments.get", ["moment_id": bobs]))?["like_count"] as? Int == 0)
    }

    @Test func anUploadedPhotoSharedInAMomentIsServedToFriendsOnlyAndGoneAfterPhotosDelete() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let cat = try makeUser(port, "cat")
        try befriend(ann, bob)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("moment-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try runProcess("/usr/bin/vips", ["black", file.path, "96", "64", "--bands", "3"]).status == 0)
        let uploaded = try http(port, "POST", "/photos", token: ann.token, body: Array(try Data(contentsOf: file)))
        #expect(uploaded.status == 201)
        let photo = try #require(json(uploaded.body)["photo_id"] as? Int)
        #expect(try http(port, "GET", "/photos/\(photo)?size=thumb", token: bob.token).status == 404)

        let moment = try #require(momentOf(try ann.client.call("moments.create", ["photo_ids": [photo]])))
        let shown = try #require((moment["photos"] as? [[String: Any]])?.first)
        #expect(shown["width"] as? Int == 96 && shown["height"] as? Int == 64)
        #expect(try http(port, "GET", "/photos/\(photo)?size=thumb", token: bob.token).status == 200)
        #expect(try http(port, "GET", "/photos/\(photo)?size=thumb", token: cat.token).status == 404)

        #expect(ok(try ann.client.call("photos.delete", ["photo_id": photo])) != nil)
        #expect(try bob.client.event("moment.deleted")["moment_id"] as? Int == moment["moment_id"] as? Int)
        #expect(try http(port, "GET", "/photos/\(photo)?size=thumb", token: ann.token).status == 404)
        #expect(try http(port, "GET", "/photos/\(photo)?size=thumb", token: bob.token).status == 404)
    }
}
