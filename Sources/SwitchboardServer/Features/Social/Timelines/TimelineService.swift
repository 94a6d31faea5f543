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

/// Timelines' use cases (docs/protocol.md, "Posts and timelines"; docs/social.md, "Timelines: storage and
/// ordering"): home (merged on read), a user's page, a thread, mentions, likes and hashtags. Each page is one
/// REPEATABLE READ transaction of `TimelineRepository` whose `after` comes from the same snapshot. Visibility is
/// `SocialGraphRepository`'s: a user the viewer may not know of is `noSuchUser`, a protected account's posts
/// `protectedPosts`, an invisible post `noSuchPost`. Reads only; no events. Off the loops only.
final class TimelineService: Sendable {
    let db: any Database
    /// The page sizes and the ancestors a thread shows.
    let limits: SocialPostConfiguration
    /// The profile `timeline.user` shows with its page, as `profile.get` shows it to the viewer (Identity's rules).
    let profile: @Sendable (_ user: Int64, _ viewer: Int64) async throws(TimelineError) -> UserProfile

    init(
        db: any Database, limits: SocialPostConfiguration,
        profile: @escaping @Sendable (_ user: Int64, _ viewer: Int64) async throws(TimelineError) -> UserProfile
    ) {
        self.db = db
        self.limits = limits
        self.profile = profile
    }

    /// `timeline.home`: the viewer's and its active followees' posts and reposts (mutes and the reply rule applied).
    func home(viewer: Int64, before: Int64?, after: Int64?, limit: Int?) async throws(TimelineError) -> PostPage {
        let (cursor, limit) = try cursor(before: before, after: after, limit: limit)
        return try await db.snapshot(as: TimelineError.self) { db in
            try TimelineRepository.home(db, viewer: viewer, cursor: cursor, limit: limit)
        }
    }

    /// `timeline.user` (by `userId` or `handle`, exactly one): the author's posts (and replies with `replies`),
    /// then the author's profile.
    func user(
        viewer: Int64, userId: Int64?, handle: String?, replies: Bool, before: Int64?, after: Int64?, limit: Int?
    ) async throws(TimelineError) -> Ops.TimelineUser.Result {
        let (cursor, limit) = try cursor(before: before, after: after, limit: limit)
        guard (userId == nil) != (handle == nil) else { throw .userOrHandle }
        let handle = handle.map { $0.hasPrefix("@") ? String($0.dropFirst()) : $0 }
        if let handle, !Handle.isWellFormed(handle) { throw .noSuchUser }
        let author: Int64 = try await db.read(as: TimelineError.self) { db in
            if let userId { return userId }
            let found = try SocialGraphRepository.userIds(db, handles: [handle?.lowercased() ?? ""])
            guard let id = found.values.first else { throw TimelineError.noSuchUser }
            return id
        }
        let page = try await db.snapshot(as: TimelineError.self) { db in
            let clock = try TimelineRepository.snapshot(db)
            try Self.requirePosts(db, viewer: viewer, author: author)
            return try TimelineRepository.user(
                db, viewer: viewer, author: author, replies: replies, cursor: cursor, limit: limit, clock: clock)
        }
        // The profile as `profile.get` shows it (GRAPH's rules), after the page's own refusals.
        return .init(page: page, profile: try await profile(author, viewer))
    }

    /// `timeline.thread`: a post the viewer may see (a repost means its original), its ancestors (at most
    /// `maxAncestors`) and a page of its replies after `after`.
    func thread(
        viewer: Int64, postId: Int64, after: Int64?, limit: Int?
    ) async throws(TimelineError) -> Ops.TimelineThread.Result {
        let limit = try page(limit)
        if let after, after < 0 { throw .badAfter }
        let most = limits.maxAncestors
        return try await db.snapshot(as: TimelineError.self) { db in
            _ = try TimelineRepository.snapshot(db)
            guard let post = try PostRepository.visiblePost(db, id: postId, viewer: viewer) else {
                throw TimelineError.noSuchPost
            }
            let thread = try TimelineRepository.thread(
                db, viewer: viewer, postId: post.repostOf?.postId ?? post.postId, after: after, limit: limit,
                maxAncestors: most)
            return .init(post: post, ancestors: thread.ancestors, replies: thread.replies, after: thread.after)
        }
    }

    /// `timeline.mentions`: posts that mention the viewer.
    func mentions(viewer: Int64, before: Int64?, after: Int64?, limit: Int?) async throws(TimelineError) -> PostPage {
        let (cursor, limit) = try cursor(before: before, after: after, limit: limit)
        return try await db.snapshot(as: TimelineError.self) { db in
            try TimelineRepository.mentions(db, viewer: viewer, cursor: cursor, limit: limit)
        }
    }

    /// `timeline.likes`: the posts a user (the viewer by default) liked, newest like first (`before`: a like id).
    func likes(
        viewer: Int64, userId: Int64?, before: Int64?, limit: Int?
    ) async throws(TimelineError) -> Ops.TimelineLikes.Result {
        let limit = try page(limit)
        if let before, before < 1 { throw .badLikeCursor }
        let user = userId ?? viewer
        return try await db.read(as: TimelineError.self) { db in
            guard try user == viewer || SocialGraphRepository.hasHandle(db, user) else {
                throw TimelineError.noSuchUser
            }
            try Self.requirePosts(db, viewer: viewer, author: user)
            let likes = try TimelineRepository.likes(db, viewer: viewer, user: user, before: before, limit: limit)
            return .init(posts: likes.posts, nextBefore: likes.nextBefore)
        }
    }

    /// `timeline.hashtag`: posts with a hashtag (normalized as `PostText` stores it).
    func hashtag(
        viewer: Int64, tag: String, before: Int64?, after: Int64?, limit: Int?
    ) async throws(TimelineError) -> PostPage {
        let (cursor, limit) = try cursor(before: before, after: after, limit: limit)
        guard let tag = PostText.normalizedTag(tag) else { throw .badHashtag }
        return try await db.snapshot(as: TimelineError.self) { db in
            try TimelineRepository.hashtag(db, viewer: viewer, tag: tag, cursor: cursor, limit: limit)
        }
    }

    /// `noSuchUser` when either blocked the other (or no such user), `protectedPosts` for a protected account's
    /// posts and a viewer who does not actively follow it.
    static func requirePosts(_ db: PostgresConnection, viewer: Int64, author: Int64) throws {
        guard try !SocialGraphRepository.canSeePosts(db, viewer: viewer, author: author) else { return }
        if try author == viewer || SocialGraphRepository.isBlockedEitherWay(db, viewer, author)
            || SocialGraphRepository.socialUsers(db, ids: [author]).isEmpty
        {
            throw TimelineError.noSuchUser
        }
        throw TimelineError.protectedPosts
    }

    /// A page size: `limit` or the default, refused outside 1...`maxPage`.
    func page(_ limit: Int?) throws(TimelineError) -> Int {
        let limit = limit ?? limits.defaultPage
        guard (1...limits.maxPage).contains(limit) else { throw .pageLimit(max: limits.maxPage) }
        return limit
    }

    /// A page's cursor (at most one of `before` and `after`) and size.
    func cursor(
        before: Int64?, after: Int64?, limit: Int?
    ) throws(TimelineError) -> (TimelineRepository.Cursor, Int) {
        let limit = try page(limit)
        switch (before, after) {
        case (.some, .some): throw .bothCursors
        case (.some(let b), nil):
            guard b >= 1 else { throw .badBefore }
            return (.before(b), limit)
        case (nil, .some(let a)):
            guard a >= 0 else { throw .badAfter }
            return (.after(a), limit)
        case (nil, nil): return (.before(nil), limit)
        }
    }
}
