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

/// Live pages: `live.subscribe` and `live.unsubscribe` (docs/protocol.md, "Live pages"; the design in
/// docs/social.md). A stream is authorized like its page (on a pooled connection), then registered in this node's
/// `SocialIndex` (`SocialLive`, queue `switchboard.social`); with `since`, the posts and deletions missed on the new
/// streams are read in one snapshot while the connection holds its live events, and the live events the replay
/// already carried are not sent again.
struct LiveFeature: Feature {
    init(context: ProtocolServices) {}

    /// What a subscription answers, and what its replay sent (for the connection's duplicate check).
    struct Outcome: Sendable {
        var result: LiveSubscribeResult
        var clock: Int64?
        var posts: [Int64]
        var deletions: [Int64]
    }

    func register(in registry: inout FeatureRegistry) {
        registry.operations.register(Ops.LiveSubscribe.self) { context, p in
            guard let streams = Self.parse(p.streams, context) else { return }
            let limit = context.services.social.configuration.maxSubscriptions
            guard streams.count <= limit else {
                context.fail(.tooMany, "at most \(limit) live streams per connection")
                return
            }
            if let since = p.since, since < 0 {
                context.fail(.badRequest, "since must not be negative")
                return
            }
            let app = context.connection
            let services = context.services
            let connection = app.connectionId
            let me = context.me
            let id = context.id
            let resume = p.since != nil
            app.social.subscribed = true
            if resume { app.beginResume() }
            context.run({ () async throws(ServiceError) -> Result<Outcome, ServiceError> in
                do throws(ServiceError) {
                    return .success(try await Self.subscribe(services, connection: connection, me: me, streams: streams, since: p.since))
                } catch {
                    return .failure(error)
                }
            }, replyWith: { app, outcome in
                switch outcome {
                case .success(let o):
                    app.sendReply(ProtocolCodec.encodeReply(id: id, result: o.result))
                    if resume { app.endResume(clock: o.clock, posts: o.posts, deletions: o.deletions) }
                case .failure(let error):
                    app.sendError(id, op: Ops.LiveSubscribe.name, error)
                    if resume { app.endResume(clock: nil, posts: [], deletions: []) }
                }
            })
        }

        registry.operations.register(Ops.LiveUnsubscribe.self) { context, p in
            guard let streams = Self.parse(p.streams, context) else { return }
            let social = context.services.social
            let connection = context.connection.connectionId
            context.run { () async throws(ServiceError) -> LiveUnsubscribeResult in
                LiveUnsubscribeResult(subscribed: await social.remove(connection, streams: streams))
            }
        }
    }

    /// The streams named (each once), or nil after answering `bad_request`.
    private static func parse<Op>(_ names: [String], _ context: RequestContext<Op>) -> [LiveStream]? {
        guard !names.isEmpty else {
            context.fail(.badRequest, "streams must not be empty")
            return nil
        }
        var streams: [LiveStream] = []
        for name in names {
            guard let stream = LiveStream(name) else {
                context.fail(.badRequest, "unknown stream \(name.prefix(64))")
                return nil
            }
            if !streams.contains(stream) { streams.append(stream) }
        }
        return streams
    }

    /// Authorizes the streams like their pages, registers them, and reads the replay of a resume.
    static func subscribe(
        _ services: ProtocolServices, connection: ConnectionID, me: Int64, streams: [LiveStream], since: Int64?
    ) async throws(ServiceError) -> Outcome {
        let pool = services.accounts.pool
        let social = services.social
        let keyed: [(LiveStream, key: Int64, owner: Int64)]
        do {
            keyed = try await pool.withConnection { db in try streams.map { stream in try authorize(db, me, stream) } }
        } catch { throw ServiceError.from(error) }
        let before = Set(await social.streams(of: connection))
        var subscribed: [String] = []
        var attempt = 0
        while true {
            attempt += 1
            let state = await social.relationsState(of: me)
            var relations: SocialLiveRepository.Relations?
            if !state.known {
                do {
                    relations = try await pool.withConnection { db in try SocialLiveRepository.relations(db, of: me) }
                } catch { throw ServiceError.from(error) }
            }
            switch await social.add(connection, user: me, streams: keyed, relations: relations, readAt: attempt < 3 ? state.version : nil) {
            case .success(let names): subscribed = names
            case .failure(.tooMany):
                throw ServiceError(.tooMany, "at most \(social.configuration.maxSubscriptions) live streams per connection")
            case .failure(.notFound): throw ServiceError(.notFound, "no such user")
            case .failure(.relationsNeeded): continue
            }
            break
        }
        guard let since else {
            let clock: Int64
            do { clock = try await pool.withConnection { db in try SocialLiveRepository.clock(db) } } catch { throw ServiceError.from(error) }
            return Outcome(
                result: LiveSubscribeResult(subscribed: subscribed, seq: clock, posts: [], deleted: [], resyncRequired: false), clock: nil,
                posts: [], deletions: [])
        }
        let new = keyed.filter { !before.contains($0.0.name) }
        let names = subscribed
        let limit = social.configuration.replayMax
        do {
            return try await pool.transaction { db in
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
                    visible(post, to: me, relations) && (authors.contains(post.author.userId) || !mutedRepost(post, relations))
                }
                return Outcome(
                    result: LiveSubscribeResult(
                        subscribed: names, seq: replay.clock, posts: posts, deleted: replay.deleted, resyncRequired: replay.overflow),
                    clock: replay.clock, posts: posts.map(\.postId), deletions: replay.deleted.map(\.postId))
            }
        } catch { throw ServiceError.from(error) }
    }

    /// A stream's routing key and owner, authorized like its page: `not_found` for what the viewer may not know of,
    /// `forbidden` for a protected account's page.
    static func authorize(_ db: PostgresConnection, _ me: Int64, _ stream: LiveStream) throws -> (LiveStream, key: Int64, owner: Int64) {
        switch stream {
        case .home, .notifications: return (stream, me, me)
        case .user(let id):
            switch try SocialLiveRepository.postsVisibility(db, viewer: me, author: id) {
            case .visible: return (stream, id, id)
            case .notFound: throw ServiceError(.notFound, "no such user")
            case .protected: throw ServiceError(.forbidden, "this account's posts are for its followers")
            }
        case .thread(let id):
            guard let place = try SocialLiveRepository.threadOf(db, postId: id),
                try SocialLiveRepository.postsVisibility(db, viewer: me, author: place.author) == .visible
            else { throw ServiceError(.notFound, "no such post") }
            return (stream, place.root, place.author)
        }
    }

    /// Whether `viewer` may see the post (and a repost's original).
    static func visible(_ post: SocialPost, to viewer: Int64, _ relations: SocialLiveRepository.Relations) -> Bool {
        func sees(_ author: SocialUser) -> Bool {
            author.userId == viewer
                || (!relations.blocked.contains(author.userId) && (!author.protected || relations.followees.contains(author.userId)))
        }
        return sees(post.author) && (post.repostOf.map { sees($0.author) } ?? true)
    }

    /// A repost of a muted user's post (left out of home).
    static func mutedRepost(_ post: SocialPost, _ relations: SocialLiveRepository.Relations) -> Bool {
        guard let original = post.repostOf else { return false }
        return relations.muted.contains(original.author.userId)
    }
}
