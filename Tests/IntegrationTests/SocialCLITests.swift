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

/// The client library's social calls (`SwitchboardClient+Social.swift`) against a real server: every reply and event
/// decodes into the protocol's types, with several users, a protected account, a block, live pages and a
/// resubscription.
@Suite("Client library: social (handles, follows, posts, timelines, likes, notifications, live pages)", .serialized)
struct SocialCLITests {
    func code<T>(_ body: () async throws(SwitchboardClientError) -> T) async -> String? {
        do {
            _ = try await body()
            return nil
        } catch {
            if case .server(let e) = error { return e.code }
            return "\(error)"
        }
    }

    static func live(_ log: EventLog) -> [SocialAPI.Event] {
        log.all.compactMap { if case .other(let raw) = $0 { return SocialAPI.Event(raw) } else { return nil } }
    }

    static func newPosts(_ log: EventLog) -> [SocialPost] {
        live(log).compactMap { if case .postNew(let p) = $0 { return p } else { return nil } }
    }

    @Test func everyCallDecodesAgainstTheServer() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let cy = try makeClient(port: port)
        let bobLog = EventLog(bob)
        let annUser = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        let cyUser = try await registerUser(cy, "Cy")
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)

        // Handles.
        #expect(
            await code { () async throws(SwitchboardClientError) in try await ann.publishPost("no handle yet") }
                == "handle_required")
        let check = try await ann.checkHandle("ann_\(tag)")
        #expect(check.available && check.reason == nil)
        let annProfile = try await ann.setHandle("ann_\(tag)")
        #expect(annProfile.handle == "ann_\(tag)" && annProfile.userId == annUser.id)
        #expect(try await bob.checkHandle("ANN_\(tag)").reason == "taken")
        #expect(
            await code { () async throws(SwitchboardClientError) in try await bob.setHandle("ANN_\(tag)") }
                == "handle_taken")
        #expect(try await bob.checkHandle("admin").reason == "reserved")
        _ = try await bob.setHandle("bob_\(tag)")
        _ = try await cy.setHandle("cy_\(tag)")
        let updated = try await ann.updateSocialProfile(bio: "hello there", dmPolicy: "mutuals")
        #expect(updated.bio == "hello there" && updated.dmPolicy == "mutuals")

        // Follows, live home page.
        let follow = try await bob.follow(annUser.id)
        #expect(follow.state == "active")
        #expect(try await bob.following().users.map(\.userId) == [annUser.id])
        #expect(try await ann.followers().users.map(\.handle) == ["bob_\(tag)"])
        let seen = try await bob.socialProfile(handle: "ann_\(tag)")
        #expect(seen.relationship?.following == "active" && seen.stats?.followers == 1 && seen.bio == "hello there")
        let subscription = try await bob.subscribeLive(["home", "notifications"])
        #expect(Set(subscription.subscribed) == ["home", "notifications"])

        // Posts, replies, reposts, likes.
        let post = try await ann.publishPost("Hi @bob_\(tag) #garden", clientId: "c-\(tag)")
        #expect(
            post.author.userId == annUser.id && post.hashtags == ["garden"]
                && post.mentions.map(\.userId) == [bobUser.id])
        #expect(await bobLog.wait { _ in Self.newPosts(bobLog).contains { $0.postId == post.postId } })
        let reply = try await bob.publishPost("Hi back", replyTo: post.postId)
        #expect(
            reply.replyTo == post.postId && reply.replyToUser?.userId == annUser.id && reply.threadRoot == post.postId)
        let liked = try await cy.like(post.postId)
        #expect(liked.liked && liked.likeCount == 1)
        #expect(try await bob.like(post.postId).likeCount == 2)
        #expect(try await bob.unlike(post.postId).likeCount == 1)
        #expect(try await cy.likers(of: post.postId).users.map(\.userId) == [cyUser.id])
        let repost = try await cy.repost(post.postId)
        #expect(repost.repostOf?.postId == post.postId && repost.shown.repostCount == 1)
        #expect(try await ann.socialPost(post.postId).replyCount == 1)

        // Timelines.
        let home = try await bob.homeTimeline(limit: 10)
        #expect(home.posts.map(\.postId).contains(post.postId))  // `after` is never null (PostPage)
        let page = try await cy.userTimeline(handle: "ann_\(tag)")
        #expect(page.posts.map(\.postId) == [post.postId] && page.profile.userId == annUser.id)
        let withReplies = try await bob.userTimeline(userId: bobUser.id, replies: true)
        #expect(withReplies.posts.map(\.postId) == [reply.postId])
        let thread = try await cy.thread(reply.postId)
        #expect(thread.ancestors.map(\.postId) == [post.postId] && thread.post.postId == reply.postId)
        #expect(try await cy.thread(post.postId).replies.map(\.postId) == [reply.postId])
        #expect(try await bob.mentionsTimeline().posts.map(\.postId) == [post.postId])
        #expect(try await cy.likesTimeline().posts.map(\.postId) == [post.postId])
        #expect(try await cy.hashtagTimeline("garden").posts.contains { $0.postId == post.postId })

        // Notifications.
        let notes = try await ann.socialNotifications()
        #expect(
            Set(notes.groups.map(\.kind)).isSuperset(of: ["follow", "like", "reply", "repost"]) && notes.unread >= 4)
        #expect(try await ann.socialUnread() == notes.unread)
        #expect(try await ann.readSocialNotifications() == 0)

        // A protected account: follow requests.
        _ = try await cy.updateSocialProfile(protected: true)
        #expect(try await ann.follow(cyUser.id).state == "pending")
        #expect(try await cy.followRequests().requests.map(\.user.userId) == [annUser.id])
        try await cy.approveFollow(annUser.id)
        #expect(try await ann.socialProfile(userId: cyUser.id).relationship?.following == "active")
        try await cy.removeFollower(annUser.id)
        #expect(try await cy.followers().users.isEmpty)

        // Deletion reaches the live page; mute and block.
        try await ann.deletePost(post.postId)
        #expect(
            await bobLog.wait { _ in
                Self.live(bobLog).contains { if case .postDeleted(post.postId, _, _, _) = $0 { true } else { false } }
            })
        try await bob.mute(annUser.id)
        #expect(try await bob.mutedUsers().users.map(\.userId) == [annUser.id])
        try await bob.unmute(annUser.id)
        try await ann.block(bobUser.id)
        #expect(try await ann.blockedUsers().users.map(\.userId) == [bobUser.id])
        #expect(
            await code { () async throws(SwitchboardClientError) in try await bob.socialProfile(userId: annUser.id) }
                == "not_found")
        #expect(
            await code { () async throws(SwitchboardClientError) in try await bob.follow(annUser.id) } == "not_found")
        try await ann.unblock(bobUser.id)
        try await bob.unfollow(annUser.id)
        #expect(try await bob.unsubscribeLive(["notifications"]) == ["home"])
        for c in [ann, bob, cy] { await c.close() }
    }

    @Test func aResubscriptionAfterADropGetsWhatWasMissed() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let bobLog = EventLog(bob)
        let annUser = try await registerUser(ann, "Ann")
        _ = try await registerUser(bob, "Bob")
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        _ = try await ann.setHandle("ann_\(tag)")
        _ = try await bob.setHandle("bob_\(tag)")
        _ = try await bob.follow(annUser.id)
        let first = try await bob.subscribeLive(["user:\(annUser.id)"])
        let one = try await ann.publishPost("one")
        #expect(await bobLog.wait { _ in Self.newPosts(bobLog).contains { $0.postId == one.postId } })
        let seen = max(first.seq, one.seq)
        await bob.dropConnection()
        let two = try await ann.publishPost("two")
        // The client reconnects by itself; the subscription died with the connection: subscribe again from `seen`.
        let again = try await bob.subscribeLive(["user:\(annUser.id)"], since: seen)
        #expect(again.posts.map(\.postId) == [two.postId] && !again.resyncRequired)
        await ann.close()
        await bob.close()
    }
}
