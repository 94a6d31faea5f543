//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardLoadKit

/// The run's social graph (issue 18): every client takes a handle, follows the next `follows` clients (a ring), and
/// keeps its home page live (`live.subscribe ["home"]`). Each post's text carries its send time, so that its
/// `post.new` at every follower's (and the author's own) home page can be timed (`post_to_live`) and counted.
struct SocialPlan: Sendable {
    /// Each client follows the next `follows` clients.
    let follows: Int
    let clients: Int

    /// `lt.<send time ns>.<k>`: the text of post k.
    static func text(sent: UInt64, k: Int) -> String { RunMarker.make(sent: sent, k: k) }

    /// Whether `client` follows `author` in the ring.
    func follows(_ client: Int, _ author: Int) -> Bool {
        let d = (author - client + clients) % clients
        return d >= 1 && d <= follows
    }

    /// The clients whose home page shows `author`'s posts: its ring followers and itself.
    func homeOf(author: Int) -> [Int] {
        [author] + (1...follows).map { (author - $0 + clients) % clients }
    }

    /// Handles, the ring of follows and the live home subscriptions.
    static func make(harness: Harness, follows: Int, concurrency: Int) async throws -> SocialPlan {
        let started = Date()
        let n = harness.clients.count
        let follows = max(1, min(follows, n - 1))
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 36)
        let failures = Locked([String]())
        await forEach(n, limit: concurrency * 2) { i in
            let client = harness.clients[i]
            do {
                _ = try await client.setHandle("lt\(tag)_\(i)")
            } catch {
                failures.withLock { $0.append("handle.set \(i): \(error)") }
            }
        }
        if let first = failures.withLock({ $0.first }) { throw SetupError(description: first) }
        await forEach(n, limit: concurrency * 2) { i in
            let client = harness.clients[i]
            for d in 1...follows {
                do {
                    _ = try await client.follow(harness.users[(i + d) % n].userId)
                } catch {
                    failures.withLock { $0.append("follow \(i) -> \((i + d) % n): \(error)") }
                }
            }
            do {
                _ = try await client.subscribeLive(["home"])
            } catch {
                failures.withLock { $0.append("live.subscribe \(i): \(error)") }
            }
        }
        if let first = failures.withLock({ $0.first }) { throw SetupError(description: first) }
        // A few posts to like from the start (before the mix has posted any).
        for i in 0..<min(n, 5) {
            do {
                let p = try await harness.clients[i].publishPost("switchboard-load setup post \(i)")
                harness.socialSeedPosts.withLock { $0.append(p.postId) }
            } catch {
                throw SetupError(description: "post.create (setup) \(i): \(error)")
            }
        }
        harness.socialLive.withLock { $0 = true }
        note(
            String(
                format: "setup: social: %d handles, %d follows each (a ring), home pages live; %.1f s", n, follows,
                Date().timeIntervalSince(started)))
        return SocialPlan(follows: follows, clients: n)
    }
}

extension Mix {
    /// `post.create` by a random client, its text carrying the send time; timed to its reply (`post_create`) and to
    /// `post.new` at each home page that shows it (`post_to_live`, by `Harness.handle`).
    func createPost(_ k: Int) async {
        guard social != nil, let client = randomSocialClient() else { return }
        let t0 = now()
        harness.started("post")
        do {
            let p = try await harness.clients[client].publishPost(
                SocialPlan.text(sent: t0, k: k), clientId: "lp.\(t0).\(k)")
            harness.record(Metric.postCreate, client: client, since: t0)
            harness.socialPosts.withLock { $0[k] = (sent: t0, postId: p.postId, author: client) }
            harness.succeeded("post")
        } catch {
            harness.fail("post", client: client, since: t0, error)
        }
    }

    /// `timeline.home` (a first page of 20) by a random client.
    func homePage(_ k: Int) async {
        guard social != nil, let client = randomSocialClient() else { return }
        let t0 = now()
        harness.started("timeline_home")
        do {
            _ = try await harness.clients[client].homeTimeline(limit: 20)
            harness.record(Metric.timelineHome, client: client, since: t0)
            harness.succeeded("timeline_home")
        } catch {
            harness.fail("timeline_home", client: client, since: t0, error)
        }
    }

    /// `post.like` of a random post of this run (or of the setup's) by a random client (each like is kept: the
    /// counts are checked at the end against the likes that succeeded).
    func likePost(_ k: Int) async {
        guard social != nil, let client = randomSocialClient() else { return }
        let seeds = harness.socialSeedPosts.withLock { $0 }
        guard let postId = harness.socialPosts.withLock({ $0.values.randomElement()?.postId }) ?? seeds.randomElement()
        else { return }
        let t0 = now()
        harness.started("like")
        do {
            _ = try await harness.clients[client].like(postId)
            harness.record(Metric.postLike, client: client, since: t0)
            harness.socialLikes.withLock { _ = $0[postId, default: []].insert(client) }
            harness.succeeded("like")
        } catch {
            // A like whose reply was lost may still have been stored: its post's count is not checked.
            harness.socialLikesUncertain.withLock { _ = $0.insert(postId) }
            harness.fail("like", client: client, since: t0, error)
        }
    }

    /// `follow` or `unfollow` (in turn per pair) of a random client outside the follower's ring (the ring's follows,
    /// which the delivery check counts on, stay).
    func followToggle(_ k: Int) async {
        guard let plan = social, plan.clients > plan.follows + 1, let client = randomSocialClient() else { return }
        let target = (client + plan.follows + 1 + Int.random(in: 0..<(plan.clients - plan.follows - 1))) % plan.clients
        let pair = client * plan.clients + target
        // Claim the pair so that two operations never toggle it at once; the mark says which way it goes.
        guard
            let following = harness.extraFollows.withLock({ f -> Bool? in
                if f.busy.contains(pair) { return nil }
                f.busy.insert(pair)
                return f.active.contains(pair)
            })
        else { return }
        defer { harness.extraFollows.withLock { _ = $0.busy.remove(pair) } }
        let t0 = now()
        harness.started("follow")
        do {
            let userId = harness.users[target].userId
            if following {
                try await harness.clients[client].unfollow(userId)
            } else {
                _ = try await harness.clients[client].follow(userId)
            }
            harness.record(Metric.follow, client: client, since: t0)
            harness.extraFollows.withLock { f in if following { f.active.remove(pair) } else { f.active.insert(pair) } }
            harness.succeeded("follow")
        } catch {
            harness.fail("follow", client: client, since: t0, error)
        }
    }

    private func randomSocialClient() -> Int? {
        for _ in 0..<50 {
            let i = Int.random(in: 0..<harness.clients.count)
            if harness.isAvailable(i) { return i }
        }
        return nil
    }

    /// Posts of this run whose `post.new` has not reached a home page that shows them, of a client that kept its
    /// connection (dropped and killed clients are excused: their subscriptions died with the connection; they
    /// subscribe again after their resume).
    func missingPostDeliveries() -> (count: Int, samples: [String]) {
        guard let plan = social else { return (0, []) }
        let excused = harness.dropped.withLock { $0 }.union(harness.killed.withLock { $0 })
        let posts = harness.socialPosts.withLock { $0 }
        let receipts = harness.postReceipts.withLock { $0 }
        var count = 0
        var samples: [String] = []
        for (k, p) in posts.sorted(by: { $0.key < $1.key }) {
            let got = receipts[k] ?? []
            let missing = plan.homeOf(author: p.author).filter { !excused.contains($0) && !got.contains($0) }
            count += missing.count
            if !missing.isEmpty && samples.count < 5 {
                samples.append(
                    """
                    post #\(p.postId) (k \(k), by client \(p.author)): no post.new at \(missing.count) home page(s), \
                    e.g. client \(missing[0])
                    """
                )
            }
        }
        return (count, samples)
    }

    /// Posts whose `like_count` (read back with `post.get`) differs from the number of clients whose like succeeded.
    func likeCountMismatches() async -> (count: Int, samples: [String]) {
        guard social != nil else { return (0, []) }
        let uncertain = harness.socialLikesUncertain.withLock { $0 }
        let likes = harness.socialLikes.withLock { $0 }.filter { !uncertain.contains($0.key) }
        var count = 0
        var samples: [String] = []
        for (postId, likers) in likes.prefix(50) {
            guard let reader = randomSocialClient(), let p = try? await harness.clients[reader].socialPost(postId)
            else { continue }
            if p.likeCount != Int64(likers.count) {
                count += 1
                if samples.count < 5 {
                    samples.append("post #\(postId): like_count \(p.likeCount), \(likers.count) likes succeeded")
                }
            }
        }
        return (count, samples)
    }
}
