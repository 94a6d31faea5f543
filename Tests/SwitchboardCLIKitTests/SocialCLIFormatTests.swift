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

@Suite("Social CLI: timeline arguments, the client's social models and the lines people see")
struct SocialCLIFormatTests {
    static let author = #"{"user_id": 7, "display_name": "Ann", "handle": "ann", "protected": false}"#

    static func post(_ fields: String) throws -> SocialPost {
        try JSONDecoder.wire.decode(SocialPost.self, from: Data(fields.utf8))
    }

    /// A thread's ancestor read from the wire.
    static func ancestor(_ fields: String) throws -> ThreadAncestor {
        try JSONDecoder.wire.decode(ThreadAncestor.self, from: Data(fields.utf8))
    }

    @Test("timeline's words: home, @handle, a user id, mentions, likes [@h], #tag; anything else is a usage error")
    func timelineKinds() throws {
        #expect(try TimelineKind.parse([]) == .home)
        #expect(try TimelineKind.parse(["home"]) == .home)
        #expect(try TimelineKind.parse(["@ann"]) == .user("@ann"))
        #expect(try TimelineKind.parse(["42"]) == .user("42"))
        #expect(try TimelineKind.parse(["mentions"]) == .mentions)
        #expect(try TimelineKind.parse(["likes"]) == .likes(nil))
        #expect(try TimelineKind.parse(["likes", "@bob"]) == .likes("@bob"))
        #expect(try TimelineKind.parse(["#Swift"]) == .hashtag("Swift"))
        for bad in [["ann"], ["#"], ["home", "x"], ["mentions", "@a"]] {
            #expect(throws: CLIError.self) { try TimelineKind.parse(bad) }
        }
    }

    @Test("a post, a repost of it and a reply read from the wire, and their lines")
    func postLines() throws {
        let original = """
            {"post_id": 12, "seq": 30, "author": \(Self.author), "text": "hello\\nworld",\
             "created_at": "2026-11-24T18:02:03.456Z",
             "reply_to": null, "reply_to_user": null, "thread_root": null, "repost_of": null, "voice_clip_id": null,
             "mentions": [{"user_id": 8, "handle": "bob"}], "hashtags": ["swift"], "like_count": 3, "repost_count": 1,
             "reply_count": 2, "liked": true, "reposted": false}
            """
        let p = try Self.post(original)
        #expect(p.author.handle == "ann" && p.mentions.first?.handle == "bob" && p.hashtags == ["swift"] && p.liked)
        #expect(CLIContext.postLine(p) == "#12 @ann: hello ⏎ world  ♥ 3✓ ↻ 1 ↩ 2  2026-11-24 18:02")
        let repost = try Self.post(
            """
            {"post_id": 15, "seq": 31, "author": {"user_id": 8, "display_name": "Bob", "handle": "bob",\
             "protected": false},
             "text": "", "created_at": "2026-11-24T18:05:00.000Z", "repost_of": \(original), "like_count": 3}
            """)
        #expect(repost.repostOf?.postId == 12 && repost.shown.text == "hello\nworld")
        #expect(CLIContext.postLine(repost).hasPrefix("#15 @bob reposted #12 @ann: hello"))
        let reply = try Self.post(
            """
            {"post_id": 16, "seq": 32, "author": {"user_id": 8, "display_name": "Bob", "handle": null,\
             "protected": false},
             "text": "hi", "created_at": "2026-11-24T18:06:00.000Z", "reply_to": 12,\
             "reply_to_user": \(Self.author), "thread_root": 12}
            """)
        #expect(CLIContext.postLine(reply) == "#16 ↩ @ann #12 Bob: hi  ♥ 0 ↻ 0 ↩ 0  2026-11-24 18:06")
        let gone = try Self.ancestor(#"{"post_id": 9, "deleted": true}"#)
        #expect(gone.deleted && CLIContext.postLine(gone) == "#9 (deleted or not visible)")
        // Printed in its wire form: snake_case keys, the original inside the repost.
        guard case .object(let json) = SocialAPI.jsonValue(repost), case .object(let inner)? = json["repost_of"] else {
            Issue.record("not an object")
            return
        }
        #expect(json["post_id"] == .int(15) && inner["like_count"] == .int(3) && inner["mentions"] != nil)
    }

    @Test("the server's own wire types (SwitchboardProtocol) read back by the client's models, field for field")
    func serverTypesDecode() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let ann = SocialUser(userId: 7, displayName: "Ann", handle: "ann", protected: true)
        let bob = SocialUser(userId: 8, displayName: "Bob", handle: nil, protected: false)
        let original = SocialPost(
            postId: 12, seq: 30, author: ann, text: "hi @bob #tag", createdAt: "2026-11-24T18:02:03.456Z", replyTo: 3,
            replyToUser: bob,
            threadRoot: 1, voiceClipId: 5, mentions: [PostMention(userId: 8, handle: "bob")], hashtags: ["tag"],
            likeCount: 4, repostCount: 2,
            replyCount: 1, liked: true, reposted: false)
        let repost = SocialPost(
            postId: 15, seq: 31, author: bob, text: "", createdAt: "2026-11-24T18:05:00.000Z", repostOf: original,
            likeCount: 4, repostCount: 2)
        let p = try JSONDecoder.wire.decode(SocialPost.self, from: encoder.encode(repost))
        let o = try #require(p.repostOf)
        #expect(
            p.postId == 15 && p.seq == 31
                && p.author == SocialUser(userId: 8, displayName: "Bob", handle: nil, protected: false))
        #expect(
            o.postId == 12 && o.seq == 30 && o.author.protected == true && o.text == "hi @bob #tag"
                && o.createdAt == "2026-11-24T18:02:03.456Z")
        #expect(o.replyTo == 3 && o.replyToUser?.userId == 8 && o.threadRoot == 1 && o.voiceClipId == 5)
        #expect(o.mentions == [PostMention(userId: 8, handle: "bob")] && o.hashtags == ["tag"])
        #expect(o.likeCount == 4 && o.repostCount == 2 && o.replyCount == 1 && o.liked && !o.reposted)
        let gone = try JSONDecoder.wire.decode(
            ThreadAncestor.self, from: encoder.encode(ThreadAncestor.gone(postId: 9)))
        #expect(gone.postId == 9 && gone.deleted)
        let thread = try JSONDecoder.wire.decode(
            Ops.TimelineThread.Result.self,
            from: encoder.encode(
                Ops.TimelineThread.Result(
                    post: original, ancestors: [.gone(postId: 1), .post(original)], replies: [repost], after: nil)))
        #expect(
            thread.ancestors.map(\.deleted) == [true, false] && thread.replies.first?.repostOf?.postId == 12
                && thread.after == nil)
    }

    @Test("social events decode from their frames; other events are not social")
    func events() {
        func raw(_ name: String, _ body: String) -> RawEvent {
            RawEvent(name: name, frame: Array(#"{"ev": "\#(name)", \#(body)}"#.utf8))
        }
        #expect(
            SocialAPI.Event(raw("post.counts", #""post_id": 4, "like_count": 5, "repost_count": 1, "reply_count": 0"#))
                == .postCounts(postId: 4, likeCount: 5, repostCount: 1, replyCount: 0))
        #expect(
            SocialAPI.Event(raw("post.deleted", #""post_id": 4, "seq": 50, "author_id": 7, "thread_root": null"#))
                == .postDeleted(postId: 4, seq: 50, authorId: 7, threadRoot: nil))
        #expect(
            SocialAPI.Event(raw("follow.changed", #""user_id": 3, "state": "pending""#))
                == .followChanged(userId: 3, state: "pending"))
        let newPost = #""post": {"post_id": 4, "seq": 9, "author": \#(Self.author), "text": "x", "created_at": "x"}"#
        if case .postNew(let p)? = SocialAPI.Event(raw("post.new", newPost)) {
            #expect(p.postId == 4 && p.seq == 9 && !p.liked)
        } else {
            Issue.record("post.new did not decode")
        }
        if case .notification(let n, let unread)? = SocialAPI.Event(
            raw(
                "notification",
                #""notification": {"id": 2, "kind": "like", "actor": \#(Self.author), "post_id": 4, "#
                    + #""created_at": "x"}, "unread": 3"#
            ))
        {
            #expect(n.kind == "like" && n.actor.handle == "ann" && unread == 3)
        } else {
            Issue.record("notification did not decode")
        }
        #expect(SocialAPI.Event(raw("message.hidden", #""conversation_id": 1"#)) == nil)
        // `listen` words them.
        let note = EventFormatter.social(
            raw(
                "notification",
                #""notification": {"id": 2, "kind": "like", "actor": \#(Self.author), "post_id": 4, "#
                    + #""created_at": "x"}, "unread": 3"#
            ))
        #expect(note?.text == "● @ann liked your post #4  (3 unread)" && note?.type == "notification")
        #expect(
            EventFormatter.social(raw("follow.changed", #""user_id": 3, "state": "none""#))?.text
                == "you no longer follow user #3")
        #expect(EventFormatter.social(raw("call.ring", #""call_id": "x""#)) == nil)
        #expect(SocialAPI.Event(raw("post.new", #""post": {}"#)) == nil)
    }

    @Test("a notification group reads as a sentence")
    func groupLines() throws {
        let group = try JSONDecoder.wire.decode(
            SocialNotificationGroup.self,
            from: Data(
                """
                {"kind": "like",
                 "post": {"post_id": 12, "seq": 3, "author": \(Self.author), "text": "hello", "created_at": "x"},
                 "actors": [\(Self.author),
                 {"user_id": 9, "display_name": "Cy", "handle": null, "protected": false}], "actor_count": 5,
                 "latest_at": "2026-11-24T18:02:03.456Z", "newest_id": 40, "unread": true}
                """.utf8))
        #expect(CLIContext.groupLine(group) == "● @ann, Cy and 3 others liked your post #12: hello  2026-11-24 18:02")
    }
}

extension JSONDecoder {
    /// The wire's conventions (snake_case keys).
    static var wire: JSONDecoder {
        let d = JSONDecoder()
        d.keyDecodingStrategy = .convertFromSnakeCase
        return d
    }
}
