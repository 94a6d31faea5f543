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

/// A small PNG made with libvips' command-line tool (as the other photo suites make theirs): `width` x `height`.
private func smallPNG(width: Int, height: Int) throws -> [UInt8] {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
        "switchboard-info-\(UUID().uuidString).png")
    defer { try? FileManager.default.removeItem(at: file) }
    let made = try runProcess("/usr/bin/env", ["vips", "black", file.path, "\(width)", "\(height)"])
    try #require(made.status == 0, "vips black failed: \(made.output)")
    return [UInt8](try Data(contentsOf: file))
}

/// `GET /photos/{id}/info` over a real socket: a route registered by the photos feature alone (`HTTPRouter`), ahead
/// of the `/photos/{id...}` session route, authorized exactly like the photo's bytes (`PhotoAccess`).
@Suite("GET /photos/{id}/info: a photo's metadata, authorized like the photo", .serialized)
struct PhotoInfoHTTPTests {
    @Test func ownerAndFriendsSeeTheInfoStrangersAndTheBlockedGet404AndEveryOtherPhotoURLIsUnchanged() throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")  // owner
        let bob = try makeUser(port, "bob")  // friend
        let sam = try makeUser(port, "sam")  // stranger
        let bad = try makeUser(port, "bad")  // friend, then blocked
        try befriend(ann, bob)
        try befriend(ann, bad)
        let upload = try http(port, "POST", "/photos", token: ann.token, body: try smallPNG(width: 40, height: 30))
        #expect(upload.status == 201)
        let photo = try #require(json(upload.body)["photo_id"] as? Int)
        // In a moment: Ann's friends may see it (PhotoAccess rule 2).
        let moment = try #require(
            (ok(try ann.client.call("moments.create", ["photo_ids": [photo]]))?["moment"] as? [String: Any])?[
                "moment_id"] as? Int)
        func info(_ user: TestUser?, _ id: String = "") throws -> (status: Int, head: String, body: [UInt8]) {
            try http(port, "GET", "/photos/\(id.isEmpty ? "\(photo)" : id)/info", token: user?.token)
        }

        // The owner: the photo's metadata and its four renditions, nothing private.
        let mine = try info(ann)
        #expect(mine.status == 200)
        #expect(header(mine.head, "Content-Type") == "application/json")
        #expect(header(mine.head, "Cache-Control") == "private, no-cache")
        let object = json(mine.body)
        #expect(object["photo_id"] as? Int == photo)
        #expect(object["owner_id"] as? Int == ann.id)
        #expect(object["width"] as? Int == 40)
        #expect(object["height"] as? Int == 30)
        #expect(object["format"] as? String == "png")
        #expect((object["color"] as? String)?.hasPrefix("#") == true)
        #expect(object["has_alpha"] as? Bool == false)
        #expect(object["created_at"] is String)
        #expect(
            Set(object.keys) == [
                "photo_id", "owner_id", "width", "height", "format", "color", "has_alpha", "created_at", "renditions",
            ])
        let renditions = try #require(object["renditions"] as? [[String: Any]])
        #expect(
            renditions.map { "\($0["size"] ?? "") \($0["format"] ?? "")" } == [
                "display webp", "display jpeg", "thumb webp", "thumb jpeg",
            ])
        for r in renditions {
            let url = try #require(r["url"] as? String)
            #expect(url == "/photos/\(photo)?size=\(r["size"] ?? "")&format=\(r["format"] ?? "")")
            // The rendition's length is what its URL serves.
            let served = try http(port, "GET", url, token: ann.token)
            #expect(served.status == 200)
            #expect(r["byte_count"] as? Int == served.body.count)
            #expect((r["width"] as? Int ?? 0) > 0 && (r["height"] as? Int ?? 0) > 0)
        }

        // A friend who sees the moment gets the same answer.
        let friends = try info(bob)
        #expect(friends.status == 200)
        #expect(friends.body == mine.body)

        // A stranger and an unknown id get the same 404 as the photo's bytes do; so does a malformed id.
        let stranger = try info(sam)
        let unknown = try info(sam, "999999999")
        #expect(stranger.status == 404)
        #expect(unknown.status == 404)
        #expect(stranger.body == unknown.body)
        #expect(stranger.body == (try http(port, "GET", "/photos/999999999", token: sam.token)).body)
        #expect((json(stranger.body)["error"] as? [String: Any])?["code"] as? String == "not_found")
        #expect(try info(ann, "abc").status == 404)
        #expect(try info(ann, "-1").status == 404)
        #expect(try info(ann, "99999999999999999999999").status == 404)

        // No token or a bad one: 401, whatever the id.
        let anonymous = try info(nil)
        #expect(anonymous.status == 401)
        #expect(header(anonymous.head, "WWW-Authenticate") == "Bearer")
        #expect(try info(nil, "999999999").status == 401)
        #expect(try http(port, "GET", "/photos/\(photo)/info", token: "nope").status == 401)

        // HEAD: the GET's status and length, no body.
        let head = try http(port, "HEAD", "/photos/\(photo)/info", token: bob.token)
        #expect(head.status == 200)
        #expect(header(head.head, "Content-Length") == "\(mine.body.count)")
        #expect(try http(port, "HEAD", "/photos/\(photo)/info", token: sam.token).status == 404)

        // The other /photos URLs answer as before: the bytes, another method (405 from the photos session route),
        // another path under a photo (404).
        #expect(try http(port, "GET", "/photos/\(photo)?size=thumb", token: bob.token).status == 200)
        let post = try http(port, "POST", "/photos/\(photo)/info", token: ann.token)
        #expect(post.status == 405)
        #expect(header(post.head, "Allow") == "GET, HEAD")
        #expect(try http(port, "DELETE", "/photos/\(photo)/info", token: ann.token).status == 405)
        #expect(try http(port, "GET", "/photos/\(photo)/other", token: ann.token).status == 404)
        #expect(try http(port, "GET", "/photos/\(photo)/info/more", token: ann.token).status == 404)

        // Authorization runs on every request: a block, then the moment's deletion, take the info away at once.
        _ = try #require(ok(try ann.client.call("block", ["user_id": bad.id])))
        #expect(try info(bad).status == 404)
        _ = try #require(ok(try ann.client.call("moments.delete", ["moment_id": moment])))
        #expect(try info(bob).status == 404)
        #expect(try info(ann).status == 200)
        _ = try #require(ok(try ann.client.call("photos.delete", ["photo_id": photo])))
        #expect(try info(ann).status == 404)
    }
}
