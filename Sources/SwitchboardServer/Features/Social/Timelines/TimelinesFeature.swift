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

/// The timelines (docs/protocol.md, "Posts and timelines"; docs/social.md, "Timelines: storage and ordering"): home
/// (merged on read), a user's page, a thread, mentions, likes and hashtags. Each handler decodes and asks
/// `TimelineService` (one REPEATABLE READ transaction per page); `timeline.user`'s profile comes from the accounts
/// service, as `profile.get` shows it.
struct TimelinesFeature: Feature {
    let service: TimelineService

    init(context: ProtocolServices) {
        let accounts = context.accounts
        service = TimelineService(db: context.pool, limits: context.configuration.posts) {
            user, viewer async throws(TimelineError) -> UserProfile in
            // Whatever the accounts service throws, as its wire answer.
            do throws(IdentityError) {
                return try await accounts.profile(viewer: viewer, userId: user, handle: nil).profile
            } catch { throw .profile(error.wire) }
        }
    }

    func register(in registry: inout FeatureRegistry) {
        let service = self.service
        registry.operations.register(Ops.TimelineHome.self) { s, p async throws(TimelineError) -> PostPage in
            try await service.home(viewer: s.userId, before: p.before, after: p.after, limit: p.limit)
        }
        registry.operations.register(Ops.TimelineUser.self) { s, p async throws(TimelineError) in
            try await service.user(
                viewer: s.userId, userId: p.userId, handle: p.handle, replies: p.replies ?? false, before: p.before,
                after: p.after, limit: p.limit)
        }
        registry.operations.register(Ops.TimelineThread.self) { s, p async throws(TimelineError) in
            try await service.thread(viewer: s.userId, postId: p.postId, after: p.after, limit: p.limit)
        }
        registry.operations.register(Ops.TimelineMentions.self) { s, p async throws(TimelineError) -> PostPage in
            try await service.mentions(viewer: s.userId, before: p.before, after: p.after, limit: p.limit)
        }
        registry.operations.register(Ops.TimelineLikes.self) { s, p async throws(TimelineError) in
            try await service.likes(viewer: s.userId, userId: p.userId, before: p.before, limit: p.limit)
        }
        registry.operations.register(Ops.TimelineHashtag.self) { s, p async throws(TimelineError) -> PostPage in
            try await service.hashtag(viewer: s.userId, tag: p.tag, before: p.before, after: p.after, limit: p.limit)
        }
    }
}
