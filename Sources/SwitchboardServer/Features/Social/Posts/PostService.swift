//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore

/// Posts' use cases (docs/protocol.md, "Posts and timelines"): posts, replies, reposts, likes and likers. Each write
/// is one transaction on the database seam (`PostRepository`: visibility through `SocialGraphRepository`, exact
/// counts, notifications recorded, the post clock stamped last), its rules checked first; after the commit the
/// changes go to live pages through `live` (new posts, deletions, counts, notifications), which routes them to the
/// subscribed connections of every node. A post the caller may not see is `noSuchPost`, never `forbidden`.
/// Posting counts against the caller's post bucket, liking against the like bucket (both shared with moments),
/// reposting against the repost bucket. Off the loops only.
final class PostService: Sendable {
    let db: any Database
    /// The limits (`--max-post-length`, the page sizes) and the per-user buckets (shared with moments).
    let limits: PostLimits
    /// Photos per post at most (`--post-max-photos`).
    let maxPhotos: Int
    /// The rule of `client_id` strings (shared with messages).
    let clientIdRule: TextRule
    /// Live pages (`SocialLive`), told of each committed change.
    let live: any SocialPublisher
    /// Monotonic nanoseconds for the rate limiters (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(
        db: any Database, limits: PostLimits, maxPhotos: Int, clientIdRule: TextRule, live: any SocialPublisher,
        clock: any EngineClock = SystemClock()
    ) {
        self.db = db
        self.limits = limits
        self.maxPhotos = maxPhotos
        self.clientIdRule = clientIdRule
        self.live = live
        self.clock = clock
    }

    /// `post.create`: a post or a reply by the caller (who needs a handle), with up to `maxPhotos` of the
    /// caller's photos or a voice clip; a resend with the same `client_id` answers the stored post. The post as
    /// its author sees it after the commit (its seq the stamped one).
    func create(
        _ caller: Caller, text: String?, replyTo: Int64?, voiceClipId: Int64?, photoIds: [Int64]?, clientId: String?
    ) async throws(PostError) -> PostResult {
        let photoIds = photoIds ?? []
        guard photoIds.count <= maxPhotos else { throw .tooManyPhotos(max: maxPhotos) }
        let parsed: PostText
        switch PostText.parse(
            text ?? "", maxCharacters: limits.configuration.maxPostLength,
            allowsEmpty: voiceClipId != nil || !photoIds.isEmpty)
        {
        case .success(let value): parsed = value
        case .failure(let problem): throw .invalidText(problem.message)
        }
        if let id = replyTo, id < 1 { throw .noSuchPost }
        if let clientId, let problem = StoredText.problem(clientId, clientIdRule) { throw .invalidClientId(problem) }
        try count(caller, against: limits.posts, "posts")
        let me = caller.userId
        let (id, effects) = try await db.write(as: PostError.self) { db in
            try Self.requireHandle(db, me)
            return try PostRepository.create(
                db, author: me, text: parsed, replyTo: replyTo, voiceClipId: voiceClipId, clientId: clientId,
                photoIds: photoIds)
        }
        live.publish(effects)
        return PostResult(post: try await load(id, viewer: me))
    }

    /// `post.get`: one post the viewer may see.
    func post(_ postId: Int64, viewer: Int64) async throws(PostError) -> PostResult {
        PostResult(
            post: try await db.read(as: PostError.self) { db in
                guard let post = try PostRepository.visiblePost(db, id: postId, viewer: viewer) else {
                    throw PostError.noSuchPost
                }
                return post
            })
    }

    /// `post.delete`: the caller's own post (any post for an administrator) with every repost of it.
    func delete(_ caller: Caller, postId: Int64) async throws(PostError) {
        let me = caller.userId
        let effects = try await db.write(as: PostError.self) { db in
            try PostRepository.delete(
                db, user: me, postId: postId, administrator: try ModerationRepository.isAdministrator(db, me))
        }
        live.publish(effects)
    }

    /// `post.like` (`liked`) or `post.unlike`: the original's exact like count after the change.
    func setLike(_ caller: Caller, postId: Int64, liked: Bool) async throws(PostError) -> PostLikeResult {
        try count(caller, against: limits.likes, "likes")
        let me = caller.userId
        let (result, effects) = try await db.write(as: PostError.self) { db in
            try Self.requireHandle(db, me)
            return try PostRepository.setLike(db, user: me, postId: postId, liked: liked)
        }
        live.publish(effects)
        return result
    }

    /// `post.repost`: the caller's repost of a post it may see (or the existing one), as the caller sees it.
    func repost(_ caller: Caller, postId: Int64) async throws(PostError) -> PostResult {
        try count(caller, against: limits.reposts, "reposts")
        let me = caller.userId
        let (id, effects) = try await db.write(as: PostError.self) { db in
            try Self.requireHandle(db, me)
            return try PostRepository.repost(db, user: me, postId: postId)
        }
        live.publish(effects)
        return PostResult(post: try await load(id, viewer: me))
    }

    /// `post.unrepost`: removes the caller's repost of a post, if any.
    func unrepost(_ caller: Caller, postId: Int64) async throws(PostError) {
        try count(caller, against: limits.reposts, "reposts")
        let me = caller.userId
        let effects = try await db.write(as: PostError.self) { db in
            try PostRepository.unrepost(db, user: me, postId: postId)
        }
        live.publish(effects)
    }

    /// `post.likers`: who liked a post the viewer may see (a repost means its original), newest like first, in
    /// pages (`before`: a like id).
    func likers(
        postId: Int64, viewer: Int64, before: Int64?, limit: Int?
    ) async throws(PostError) -> Ops.PostLikers.Result {
        let limit = try page(limit)
        return try await db.read(as: PostError.self) { db in
            guard let post = try PostRepository.target(db, id: postId, viewer: viewer) else {
                throw PostError.noSuchPost
            }
            let rows = try PostRepository.likers(db, postId: post.id, viewer: viewer, before: before, limit: limit + 1)
            let page = rows.prefix(limit)
            return .init(users: page.map(\.user), nextBefore: rows.count > limit ? page.last?.likeId : nil)
        }
    }

    /// Account deletion's `posts` step: a batch of `userId`'s posts and others' reposts of them, marked deleted
    /// like `post.delete` (counts adjusted, each stamped from `post_clock`); live pages hear of each once the
    /// batch has committed.
    func deletionStep() -> AccountDeletionStep {
        let live = self.live
        return AccountDeletionStep(name: "posts", order: SocialAccountData.postsOrder) { db, userId, limit in
            let posts = try SocialGraphRepository.deletePosts(db, userId: userId, limit: limit)
            return DeletionBatch(changed: posts.count) {
                for p in posts {
                    live.publish(
                        .postDeleted(postId: p.postId, authorId: p.authorId, threadRoot: p.threadRoot, seq: p.seq))
                }
            }
        }
    }

    /// A page size: `limit` or the default, refused outside 1...`maxPage`.
    private func page(_ limit: Int?) throws(PostError) -> Int {
        let limit = limit ?? limits.configuration.defaultPage
        let most = limits.configuration.maxPage
        guard (1...most).contains(limit) else { throw .pageLimit(max: most) }
        return limit
    }

    /// A post just written, as `viewer` (its author) sees it: read after the commit, so its seq is the stamped one.
    private func load(_ id: Int64, viewer: Int64) async throws(PostError) -> SocialPost {
        try await db.read(as: PostError.self) { db in
            guard let post = try PostRepository.posts(db, ids: [id], viewer: viewer)[id] else {
                throw PostError.noSuchPost
            }
            return post
        }
    }

    /// Posting, liking and reposting need a handle of one's own; the account's row stays locked against deletion
    /// until the transaction ends (`SocialGraphRepository.lockHandle`), so nothing is created after deletion's steps.
    private static func requireHandle(_ db: PostgresConnection, _ user: Int64) throws {
        guard try SocialGraphRepository.lockHandle(db, user) else { throw PostError.handleRequired }
    }

    /// Takes one token of the caller's `bucket`, or refuses with its retry time.
    private func count(
        _ caller: Caller, against limiter: SharedRateLimiter<Int64>, _ bucket: String
    ) throws(PostError) {
        let attempt = limiter.attempt(caller.userId, now: clock.now(), sharedBy: caller.limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds {
            throw .rateLimited(bucket: bucket, retryAfterMilliseconds: retryAfter)
        }
    }
}
