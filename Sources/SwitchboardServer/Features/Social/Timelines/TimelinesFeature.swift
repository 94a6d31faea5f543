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

/// The timelines (docs/protocol.md, "Posts and timelines"; docs/social.md, "Timelines: storage and ordering"): home
/// (merged on read), a user's page, a thread, mentions, likes and hashtags. Each page is one REPEATABLE READ
/// transaction of `TimelineRepository`; its `after` comes from the same snapshot.
struct TimelinesFeature: Feature {
    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.operations.register(Ops.TimelineHome.self) { s, p async throws(ServiceError) -> PostPage in
            let (cursor, limit) = try Self.cursor(s, before: p.before, after: p.after, limit: p.limit)
            let me = s.userId
            return try await PostsFeature.database(s, transaction: true) { db in try TimelineRepository.home(db, viewer: me, cursor: cursor, limit: limit) }
        }
        registry.operations.register(Ops.TimelineUser.self) { s, p async throws(ServiceError) -> Ops.TimelineUser.Result in
            let (cursor, limit) = try Self.cursor(s, before: p.before, after: p.after, limit: p.limit)
            let me = s.userId
            guard (p.userId == nil) != (p.handle == nil) else { throw ServiceError(.badRequest, "give user_id or handle") }
            let handle = p.handle.map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }
            if let handle, !Handle.isWellFormed(handle) { throw Self.noSuchUser }
            let author: Int64 = try await PostsFeature.database(s) { db in
                if let id = p.userId { return id }
                guard let id = try SocialGraphRepository.userIds(db, handles: [handle?.lowercased() ?? ""]).values.first else { throw Self.noSuchUser }
                return id
            }
            let page = try await PostsFeature.database(s, transaction: true) { db in
                let clock = try TimelineRepository.snapshot(db)
                try Self.requirePosts(db, viewer: me, author: author)
                return try TimelineRepository.user(
                    db, viewer: me, author: author, replies: p.replies ?? false, cursor: cursor, limit: limit, clock: clock)
            }
            // The profile as `profile.get` shows it (GRAPH's rules), after the page's own refusals.
            let profile = try await s.services.accounts.profile(of: author, viewer: me)
            return .init(page: page, profile: UserProfile(profile))
        }
        registry.operations.register(Ops.TimelineThread.self) { s, p async throws(ServiceError) -> Ops.TimelineThread.Result in
            let limit = try s.services.posts.page(p.limit)
            if let after = p.after, after < 0 { throw ServiceError(.badRequest, "after must be 0 or more") }
            let me = s.userId
            let most = s.services.posts.configuration.maxAncestors
            return try await PostsFeature.database(s, transaction: true) { db in
                _ = try TimelineRepository.snapshot(db)
                guard let post = try PostRepository.visiblePost(db, id: p.postId, viewer: me) else { throw PostsFeature.noSuchPost }
                let thread = try TimelineRepository.thread(db, viewer: me, postId: post.repostOf?.postId ?? post.postId, after: p.after, limit: limit, maxAncestors: most)
                return .init(post: post, ancestors: thread.ancestors, replies: thread.replies, after: thread.after)
            }
        }
        registry.operations.register(Ops.TimelineMentions.self) { s, p async throws(ServiceError) -> PostPage in
            let (cursor, limit) = try Self.cursor(s, before: p.before, after: p.after, limit: p.limit)
            let me = s.userId
            return try await PostsFeature.database(s, transaction: true) { db in try TimelineRepository.mentions(db, viewer: me, cursor: cursor, limit: limit) }
        }
        registry.operations.register(Ops.TimelineLikes.self) { s, p async throws(ServiceError) -> Ops.TimelineLikes.Result in
            let limit = try s.services.posts.page(p.limit)
            if let before = p.before, before < 1 { throw ServiceError(.badRequest, "before must be a like id (1 or more)") }
            let me = s.userId
            let user = p.userId ?? me
            return try await PostsFeature.database(s) { db in
                guard try user == me || SocialGraphRepository.hasHandle(db, user) else { throw Self.noSuchUser }
                try Self.requirePosts(db, viewer: me, author: user)
                let likes = try TimelineRepository.likes(db, viewer: me, user: user, before: p.before, limit: limit)
                return .init(posts: likes.posts, nextBefore: likes.nextBefore)
            }
        }
        registry.operations.register(Ops.TimelineHashtag.self) { s, p async throws(ServiceError) -> PostPage in
            let (cursor, limit) = try Self.cursor(s, before: p.before, after: p.after, limit: p.limit)
            guard let tag = PostText.normalizedTag(p.tag) else { throw ServiceError(.badRequest, "tag is not a hashtag") }
            let me = s.userId
            return try await PostsFeature.database(s, transaction: true) { db in
                try TimelineRepository.hashtag(db, viewer: me, tag: tag, cursor: cursor, limit: limit)
            }
        }
    }

    static let noSuchUser = ServiceError(.notFound, "no such user")

    /// `not_found` when either blocked the other (or no such user), `forbidden` for a protected account's posts and a
    /// viewer who does not actively follow it.
    static func requirePosts(_ db: PostgresConnection, viewer: Int64, author: Int64) throws {
        guard try !SocialGraphRepository.canSeePosts(db, viewer: viewer, author: author) else { return }
        if try author == viewer || SocialGraphRepository.isBlockedEitherWay(db, viewer, author) || SocialGraphRepository.socialUsers(db, ids: [author]).isEmpty {
            throw noSuchUser
        }
        throw ServiceError(.forbidden, "this account's posts are for its followers")
    }

    /// A page's cursor (at most one of `before` and `after`) and size.
    static func cursor<Op>(_ s: RequestContext<Op>.Snapshot, before: Int64?, after: Int64?, limit: Int?) throws(ServiceError) -> (
        TimelineRepository.Cursor, Int
    ) {
        let limit = try s.services.posts.page(limit)
        switch (before, after) {
        case (.some, .some): throw ServiceError(.badRequest, "give before or after, not both")
        case (.some(let b), nil):
            guard b >= 1 else { throw ServiceError(.badRequest, "before must be 1 or more") }
            return (.before(b), limit)
        case (nil, .some(let a)):
            guard a >= 0 else { throw ServiceError(.badRequest, "after must be 0 or more") }
            return (.after(a), limit)
        case (nil, nil): return (.before(nil), limit)
        }
    }
}
