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

/// Posts, replies, reposts and likes (docs/protocol.md, "Posts and timelines").
///
/// Each write is one transaction in `PostRepository` (visibility through `SocialGraphRepository`, exact counts,
/// notifications recorded with `SocialNotifications.record`, the post clock stamped last); after its commit the
/// changes go to LIVE (`SocialChange`: `postCreated`, `postDeleted`, `counts`, `notified`), which routes them to the
/// subscribed connections of every node. Rate limits: `PostLimits` (`--post-burst`, `--like-burst`, ...).
struct PostsFeature: Feature {
    static let migrations: [Migration] = [.v0012PostClientIds]

    /// Live pages, told of the posts an account deletion marks deleted.
    let social: SocialLive

    init(context: ProtocolServices) {
        social = context.social
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(SocialAccountData.likes)
        // The user's posts and others' reposts of them, marked deleted like `post.delete` (counts adjusted, each
        // stamped from `post_clock`); live pages hear of each once the batch has committed.
        let social = self.social
        registry.add(
            AccountDeletionStep(name: "posts", order: SocialAccountData.postsOrder) { db, userId, limit in
                let posts = try SocialGraphRepository.deletePosts(db, userId: userId, limit: limit)
                return DeletionBatch(changed: posts.count) {
                    for p in posts {
                        social.publish(
                            .postDeleted(postId: p.postId, authorId: p.authorId, threadRoot: p.threadRoot, seq: p.seq))
                    }
                }
            })
        registry.operations.register(Ops.PostCreate.self) { s, p async throws(ServiceError) -> PostResult in
            let limits = s.services.posts
            let photoIds = p.photoIds ?? []
            guard photoIds.count <= s.services.moments.postMaxPhotos else {
                throw ServiceError(.badRequest, "a post holds at most \(s.services.moments.postMaxPhotos) photos")
            }
            let text: PostText
            switch PostText.parse(
                p.text ?? "", maxCharacters: limits.configuration.maxPostLength, allowsEmpty: p.voiceClipId != nil || !photoIds.isEmpty)
            {
            case .success(let parsed): text = parsed
            case .failure(let problem): throw ServiceError(.invalidText, problem.message)
            }
            if let id = p.replyTo, id < 1 { throw Self.noSuchPost }
            if let clientId = p.clientId, let problem = StoredText.problem(clientId, s.services.messages.configuration.clientIdRule) {
                throw ServiceError(.badRequest, problem)
            }
            try s.count(limits.posts, "posts")
            let me = s.userId
            let (id, effects) = try await Self.database(s, transaction: true) { db in
                try Self.requireHandle(db, me)
                return try PostRepository.create(
                    db, author: me, text: text, replyTo: p.replyTo, voiceClipId: p.voiceClipId, clientId: p.clientId, photoIds: photoIds)
            }
            Self.publish(s.services, effects)
            return PostResult(post: try await Self.load(s, id))
        }
        registry.operations.register(Ops.PostGet.self) { s, p async throws(ServiceError) -> PostResult in
            let me = s.userId
            return PostResult(
                post: try await Self.database(s) { db in
                    guard let post = try PostRepository.visiblePost(db, id: p.postId, viewer: me) else { throw Self.noSuchPost }
                    return post
                })
        }
        registry.operations.register(Ops.PostDelete.self) { s, p async throws(ServiceError) -> Empty in
            let me = s.userId
            let effects = try await Self.database(s, transaction: true) { db in
                try PostRepository.delete(db, user: me, postId: p.postId, administrator: try ModerationRepository.isAdministrator(db, me))
            }
            Self.publish(s.services, effects)
            return Empty()
        }
        registry.operations.register(Ops.PostLike.self) { s, p async throws(ServiceError) -> PostLikeResult in
            try await Self.like(s, p.postId, true)
        }
        registry.operations.register(Ops.PostUnlike.self) { s, p async throws(ServiceError) -> PostLikeResult in
            try await Self.like(s, p.postId, false)
        }
        registry.operations.register(Ops.PostRepost.self) { s, p async throws(ServiceError) -> PostResult in
            try s.count(s.services.posts.reposts, "reposts")
            let me = s.userId
            let (id, effects) = try await Self.database(s, transaction: true) { db in
                try Self.requireHandle(db, me)
                return try PostRepository.repost(db, user: me, postId: p.postId)
            }
            Self.publish(s.services, effects)
            return PostResult(post: try await Self.load(s, id))
        }
        registry.operations.register(Ops.PostUnrepost.self) { s, p async throws(ServiceError) -> Empty in
            try s.count(s.services.posts.reposts, "reposts")
            let me = s.userId
            let effects = try await Self.database(s, transaction: true) { db in try PostRepository.unrepost(db, user: me, postId: p.postId) }
            Self.publish(s.services, effects)
            return Empty()
        }
        registry.operations.register(Ops.PostLikers.self) { s, p async throws(ServiceError) -> Ops.PostLikers.Result in
            let limit = try s.services.posts.page(p.limit)
            let me = s.userId
            return try await Self.database(s) { db in
                guard let post = try PostRepository.target(db, id: p.postId, viewer: me) else { throw Self.noSuchPost }
                let rows = try PostRepository.likers(db, postId: post.id, viewer: me, before: p.before, limit: limit + 1)
                let page = rows.prefix(limit)
                return .init(users: page.map(\.user), nextBefore: rows.count > limit ? page.last?.likeId : nil)
            }
        }
    }

    static let noSuchPost = ServiceError(.notFound, "no such post")

    static func like<Op>(_ s: RequestContext<Op>.Snapshot, _ postId: Int64, _ liked: Bool) async throws(ServiceError) -> PostLikeResult {
        try s.count(s.services.posts.likes, "likes")
        let me = s.userId
        let (result, effects) = try await Self.database(s, transaction: true) { db in
            try Self.requireHandle(db, me)
            return try PostRepository.setLike(db, user: me, postId: postId, liked: liked)
        }
        Self.publish(s.services, effects)
        return result
    }

    /// Posting, liking and reposting need a handle of one's own.
    static func requireHandle(_ db: PostgresConnection, _ user: Int64) throws {
        guard try SocialGraphRepository.hasHandle(db, user) else { throw ServiceError(.handleRequired, "choose a handle first") }
    }

    /// A post just written, as its author sees it (after the commit: its seq is the stamped one).
    static func load<Op>(_ s: RequestContext<Op>.Snapshot, _ id: Int64) async throws(ServiceError) -> SocialPost {
        let me = s.userId
        return try await Self.database(s) { db in
            guard let post = try PostRepository.posts(db, ids: [id], viewer: me)[id] else { throw Self.noSuchPost }
            return post
        }
    }

    /// Tells LIVE what a committed write changed: new posts, deletions, counts, then notifications.
    static func publish(_ services: ProtocolServices, _ effects: PostRepository.Effects) {
        for id in effects.created { services.social.publish(.postCreated(postId: id)) }
        for d in effects.deleted {
            services.social.publish(.postDeleted(postId: d.postId, authorId: d.authorId, threadRoot: d.threadRoot, seq: d.seq))
        }
        for id in Set(effects.counts).sorted() { services.social.publish(.counts(postId: id)) }
        for n in effects.notified { services.social.publish(.notified(userId: n.userId, notificationId: n.notificationId)) }
    }

    static func database<Op, T: Sendable>(
        _ s: RequestContext<Op>.Snapshot, transaction: Bool = false, _ body: @escaping @Sendable (PostgresConnection) throws -> T
    ) async throws(ServiceError) -> T {
        try await ModerationFeature.database(s, transaction: transaction, body)
    }
}
