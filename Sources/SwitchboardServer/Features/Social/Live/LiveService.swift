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

/// Live pages' use cases (docs/protocol.md, "Live pages"; the design in docs/social.md): a stream is authorized like
/// its page (on a pooled connection), then registered in this node's `SocialIndex` through the `SocialLive`
/// engine; with `since`, the posts and deletions missed on the new streams are read in one REPEATABLE READ
/// snapshot. What a resume sent is returned so that the connection (on its loop) drops the live events it already
/// carried: that hand-off stays in the handler. A stream the caller may not know of is `noSuchUser`/`noSuchPost`,
/// a protected account's page `protectedPosts`. Off the loops only, but for the checks without the database.
final class LiveService: Sendable {
    let db: any Database
    /// The engine holding this node's subscriptions.
    let live: SocialLive

    /// What a subscription answers, and what its replay sent (for the connection's duplicate check).
    struct Outcome: Sendable {
        /// The reply.
        var result: LiveSubscribeResult
        /// The clock the replay read (nil without `since`).
        var clock: Int64?
        /// The posts and deletions the replay carried.
        var posts: [Int64]
        var deletions: [Int64]
    }

    init(db: any Database, live: SocialLive) {
        self.db = db
        self.live = live
    }

    /// The limits (`--max-subscriptions`, `--live-replay-max`).
    var limits: LiveConfiguration { live.configuration }

    /// The streams named (each once, in order). No database: checked on the connection's loop.
    func streams(_ names: [String]) throws(LiveError) -> [LiveStream] {
        guard !names.isEmpty else { throw .noStreams }
        var streams: [LiveStream] = []
        for name in names {
            guard let stream = LiveStream(name) else { throw .unknownStream(name) }
            if !streams.contains(stream) { streams.append(stream) }
        }
        return streams
    }

    /// `live.subscribe`'s checks before any work: at most `maxSubscriptions` streams, `since` not negative. No
    /// database: checked on the connection's loop.
    func check(_ streams: [LiveStream], since: Int64?) throws(LiveError) {
        guard streams.count <= limits.maxSubscriptions else { throw .tooManyStreams(max: limits.maxSubscriptions) }
        if let since, since < 0 { throw .badSince }
    }

    /// `live.subscribe`: authorizes the streams like their pages, registers them for `connection`, and reads the
    /// replay of a resume (`since`).
    func subscribe(
        connection: ConnectionID, user me: Int64, streams: [LiveStream], since: Int64?
    ) async throws(LiveError) -> Outcome {
        let keyed = try await db.read(as: LiveError.self) { db in
            try streams.map { stream in try Self.authorize(db, me, stream) }
        }
        let before = Set(await live.streams(of: connection))
        var subscribed: [String] = []
        var attempt = 0
        while true {
            attempt += 1
            let state = await live.relationsState(of: me)
            var relations: SocialLiveRepository.Relations?
            if !state.known {
                relations = try await db.read(as: LiveError.self) { db in
                    try SocialLiveRepository.relations(db, of: me)
                }
            }
            let readAt = attempt < 3 ? state.version : nil
            switch await live.add(connection, user: me, streams: keyed, relations: relations, readAt: readAt) {
            case .success(let names): subscribed = names
            case .failure(.tooMany): throw .tooManyStreams(max: limits.maxSubscriptions)
            case .failure(.notFound): throw .noSuchUser
            case .failure(.relationsNeeded): continue
            }
            break
        }
        guard let since else {
            let clock = try await db.read(as: LiveError.self) { db in try SocialLiveRepository.clock(db) }
            return Outcome(
                result: LiveSubscribeResult(
                    subscribed: subscribed, seq: clock, posts: [], deleted: [], resyncRequired: false),
                clock: nil, posts: [], deletions: [])
        }
        let new = keyed.filter { !before.contains($0.0.name) }
        let names = subscribed
        let limit = limits.replayMax
        return try await db.snapshot(as: LiveError.self) { db in
            try SocialLiveRepository.beginSnapshot(db)
            let relations = try SocialLiveRepository.relations(db, of: me)
            let home = new.contains { $0.0 == .home }
            let homeAuthors = home ? Array(relations.followees.union([me]).subtracting(relations.muted)) : []
            let authors = new.compactMap { if case .user = $0.0 { $0.key } else { nil } }
            let roots = new.compactMap { if case .thread = $0.0 { $0.key } else { nil } }
            let replay = try SocialLiveRepository.replay(
                db, viewer: me, since: since, homeAuthors: homeAuthors, authors: authors, roots: roots, limit: limit)
            let loaded = try PostRepository.posts(db, ids: replay.postIds, viewer: 0)
            let posts = replay.postIds.compactMap { loaded[$0] }.filter { post in
                Self.visible(post, to: me, relations)
                    && (authors.contains(post.author.userId) || !Self.mutedRepost(post, relations))
            }
            return Outcome(
                result: LiveSubscribeResult(
                    subscribed: names, seq: replay.clock, posts: posts, deleted: replay.deleted,
                    resyncRequired: replay.overflow),
                clock: replay.clock, posts: posts.map(\.postId), deletions: replay.deleted.map(\.postId))
        }
    }

    /// `live.unsubscribe`: removes the streams of `connection`; what is left.
    func unsubscribe(connection: ConnectionID, streams: [LiveStream]) async -> LiveUnsubscribeResult {
        LiveUnsubscribeResult(subscribed: await live.remove(connection, streams: streams))
    }

    /// A stream's routing key and owner, authorized like its page: `noSuchUser`/`noSuchPost` for what the viewer
    /// may not know of, `protectedPosts` for a protected account's page.
    static func authorize(
        _ db: PostgresConnection, _ me: Int64, _ stream: LiveStream
    ) throws -> (LiveStream, key: Int64, owner: Int64) {
        switch stream {
        case .home, .notifications: return (stream, me, me)
        case .user(let id):
            switch try SocialLiveRepository.postsVisibility(db, viewer: me, author: id) {
            case .visible: return (stream, id, id)
            case .notFound: throw LiveError.noSuchUser
            case .protected: throw LiveError.protectedPosts
            }
        case .thread(let id):
            guard let place = try SocialLiveRepository.threadOf(db, postId: id),
                try SocialLiveRepository.postsVisibility(db, viewer: me, author: place.author) == .visible
            else { throw LiveError.noSuchPost }
            return (stream, place.root, place.author)
        }
    }

    /// Whether `viewer` may see the post (and a repost's original).
    static func visible(_ post: SocialPost, to viewer: Int64, _ relations: SocialLiveRepository.Relations) -> Bool {
        func sees(_ author: SocialUser) -> Bool {
            author.userId == viewer
                || (!relations.blocked.contains(author.userId)
                    && (!author.protected || relations.followees.contains(author.userId)))
        }
        return sees(post.author) && (post.repostOf.map { sees($0.author) } ?? true)
    }

    /// A repost of a muted user's post (left out of home).
    static func mutedRepost(_ post: SocialPost, _ relations: SocialLiveRepository.Relations) -> Bool {
        guard let original = post.repostOf else { return false }
        return relations.muted.contains(original.author.userId)
    }
}
