//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol
import Testing

@testable import SwitchboardCLIKit

@Suite("Photo CLI: moment and post lines, moment events, photo files, the --more cursor")
struct PhotoCLIFormatTests {
    static let ann =
        #"{"user_id": 7, "display_name": "Ann", "handle": "ann", "protected": false, "avatar_photo_id": 3}"#
    static let bob = #"{"user_id": 8, "display_name": "Bob", "handle": null, "protected": false}"#
    static let photo =
        ##"{"photo_id": 12, "width": 4000, "height": 3000, "color": "#6a7b8c", "has_alpha": false, "##
        + ##""created_at": "2026-11-25T01:02:03.000Z"}"##
    static let moment = """
        {"moment_id": 5, "owner": \(ann), "caption": "At the lake\\nin May", "photos": [\(photo),
         {"photo_id": 13, "width": 3000, "height": 4000, "color": "#000000", "has_alpha": true,\
         "created_at": "2026-11-25T01:02:03.000Z"}],
         "like_count": 4, "liked": true, "recent_likers": [\(bob)], "created_at": "2026-11-25T01:02:03.000Z"}
        """

    @Test("a moment's line: owner, caption, photos with sizes, likes with the newest likers and how many more, time")
    func momentLine() throws {
        let m = try JSONDecoder.wire.decode(Moment.self, from: Data(Self.moment.utf8))
        #expect(m.owner.avatarPhotoId == 3 && m.recentLikers.first?.avatarPhotoId == nil)
        #expect(
            CLIContext.momentLine(m)
                == "#5 @ann: At the lake ⏎ in May  [2 photos: #12 4000x3000, #13 3000x4000]"
                + "  ♥ 4✓ (Bob and 3 more)  2026-11-25 01:02"
        )
        var plain = m
        plain.caption = ""
        plain.likeCount = 0
        plain.liked = false
        plain.recentLikers = []
        plain.photos = [m.photos[0]]
        #expect(CLIContext.momentLine(plain) == "#5 @ann  [1 photo: #12 4000x3000]  ♥ 0  2026-11-25 01:02")
        let record = CLIContext.momentRecord("moment", m)
        #expect(record.fields["moment"]?["moment_id"] == .int(5))
    }

    @Test("a post with photos reads them from the wire and lists them on its line")
    func postWithPhotos() throws {
        let p = try JSONDecoder.wire.decode(
            SocialPost.self,
            from: Data(
                """
                {"post_id": 20, "seq": 40, "author": \(Self.ann), "text": "", "created_at": "2026-11-25T01:02:03.000Z",
                 "photos": [\(Self.photo)], "like_count": 0}
                """.utf8))
        #expect(p.photos.map(\.photoId) == [12])
        #expect(CLIContext.postLine(p) == "#20 @ann:  [1 photo: #12 4000x3000]  ♥ 0 ↻ 0 ↩ 0  2026-11-25 01:02")
        let encoded = SocialAPI.jsonValue(p)
        #expect(encoded["photos"]?[0]?["photo_id"] == .int(12))
        let none = try JSONDecoder.wire.decode(
            SocialPost.self,
            from: Data(#"{"post_id": 21, "seq": 41, "author": \#(Self.ann), "text": "hi", "created_at": ""}"#.utf8))
        #expect(none.photos.isEmpty && SocialAPI.jsonValue(none)["photos"] == nil)
    }

    @Test("moment events in words: a new moment, a deletion, a like")
    func momentEvents() throws {
        func raw(_ name: String, _ fields: String) -> RawEvent {
            RawEvent(name: name, frame: Array(#"{"ev": "\#(name)", \#(fields)}"#.utf8))
        }
        let created = try #require(EventFormatter.moments(raw("moment.created", #""moment": \#(Self.moment)"#)))
        #expect(created.type == "moment.created" && created.text.hasPrefix("new moment #5 @ann: At the lake"))
        let deleted = try #require(EventFormatter.moments(raw("moment.deleted", #""moment_id": 5, "owner_id": 7"#)))
        #expect(deleted.text == "moment #5 was deleted")
        let liked = try #require(
            EventFormatter.moments(
                raw("moment.liked", #""moment_id": 5, "like_count": 2, "liked": true, "user": \#(Self.bob)"#)))
        #expect(liked.text == "Bob liked moment #5  ♥ 2")
        #expect(EventFormatter.moments(raw("post.new", #""post": {}"#)) == nil)
    }

    @Test("photo files are read before anything is sent: missing and empty files are local-file errors")
    func photoFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photo-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let good = folder.appendingPathComponent("a.jpg").path
        let empty = folder.appendingPathComponent("empty.jpg").path
        #expect(FileManager.default.createFile(atPath: good, contents: Data([0xFF, 0xD8, 0xFF, 0xE0])))
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(try CLIContext.readPhotoFiles([good]).first?.bytes == [0xFF, 0xD8, 0xFF, 0xE0])
        for bad in [[good, folder.appendingPathComponent("missing.jpg").path], [empty]] {
            do {
                _ = try CLIContext.readPhotoFiles(bad)
                Issue.record("\(bad) was read")
            } catch {
                #expect(error.exitCode == .localFile)
            }
        }
    }

    @Test("the --more cursor lives in PROFILE.moments and goes with the profile")
    func momentsCursor() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("photo-cli-\(UUID().uuidString)")
            .path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try ProfileStore(directory: folder, profile: "p1")
        #expect(store.momentsCursor() == nil)
        store.recordMomentsCursor(42)
        #expect(store.momentsCursor() == 42 && ProfileStore.mode(of: store.momentsCursorPath) == 0o600)
        store.recordMomentsCursor(nil)
        #expect(store.momentsCursor() == nil)
        store.recordMomentsCursor(7)
        try store.delete()
        #expect(!FileManager.default.fileExists(atPath: store.momentsCursorPath))
    }
}

extension JSONValue {
    /// An object's field, for the checks above.
    fileprivate subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// An array's element, for the checks above.
    fileprivate subscript(index: Int) -> JSONValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}
