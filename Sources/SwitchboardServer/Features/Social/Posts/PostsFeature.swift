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

/// Posts, replies, reposts and likes (docs/protocol.md, "Posts and timelines"). Each handler decodes, asks
/// `PostService` (one transaction, the rules, the hand-off of the committed changes to live pages: `postCreated`,
/// `postDeleted`, `counts`, `notified`) and replies. Rate limits: the shared `PostLimits` (`--post-burst`,
/// `--like-burst`, ...). Owns its part of account deletion (likes given, posts) and the post client ids' migration.
struct PostsFeature: Feature {
    static let migrations: [Migration] = [.v0012PostClientIds]

    let service: PostService

    init(context: ProtocolServices) {
        service = PostService(
            db: context.pool, limits: context.posts, maxPhotos: context.configuration.moments.postMaxPhotos,
            clientIdRule: context.configuration.messaging.clientIdRule, live: context.social)
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(SocialAccountData.likes)
        registry.add(service.deletionStep())
        let c = service.limits.configuration
        registry.configuration.append(
            ConfigurationGroup(
                feature: "posts",
                values: [
                    ("max-post-length", "\(c.maxPostLength)"), ("post-burst", "\(c.postBurst)"),
                    ("post-refill", "\(c.postRefillSeconds)"), ("like-burst", "\(c.likeBurst)"),
                    ("like-refill", "\(c.likeRefillSeconds)"), ("repost-burst", "\(c.repostBurst)"),
                    ("repost-refill", "\(c.repostRefillSeconds)"), ("post-max-photos", "\(service.maxPhotos)"),
                ]))
        let service = self.service
        registry.operations.register(Ops.PostCreate.self) { s, p async throws(PostError) -> PostResult in
            try await service.create(
                s.caller, text: p.text, replyTo: p.replyTo, voiceClipId: p.voiceClipId, photoIds: p.photoIds,
                clientId: p.clientId)
        }
        registry.operations.register(Ops.PostGet.self) { s, p async throws(PostError) -> PostResult in
            try await service.post(p.postId, viewer: s.userId)
        }
        registry.operations.register(Ops.PostDelete.self) { s, p async throws(PostError) -> Empty in
            try await service.delete(s.caller, postId: p.postId)
            return Empty()
        }
        registry.operations.register(Ops.PostLike.self) { s, p async throws(PostError) -> PostLikeResult in
            try await service.setLike(s.caller, postId: p.postId, liked: true)
        }
        registry.operations.register(Ops.PostUnlike.self) { s, p async throws(PostError) -> PostLikeResult in
            try await service.setLike(s.caller, postId: p.postId, liked: false)
        }
        registry.operations.register(Ops.PostRepost.self) { s, p async throws(PostError) -> PostResult in
            try await service.repost(s.caller, postId: p.postId)
        }
        registry.operations.register(Ops.PostUnrepost.self) { s, p async throws(PostError) -> Empty in
            try await service.unrepost(s.caller, postId: p.postId)
            return Empty()
        }
        registry.operations.register(Ops.PostLikers.self) { s, p async throws(PostError) -> Ops.PostLikers.Result in
            try await service.likers(postId: p.postId, viewer: s.userId, before: p.before, limit: p.limit)
        }
    }
}
