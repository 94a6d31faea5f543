//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport
import SwitchboardWebSocket

/// Live pages (`docs/social.md`, "Live pages: ordering, routing and resume"). The other parts `publish` each
/// change after its commit; a resolver reads what the change needs (the post, the counts, the notification) on a
/// pooled database connection, a batch of changes at a time, encodes each event once, routes the batch to this
/// node's connections through its `SocialIndex` and broadcasts it to the other nodes in one bus message, where
/// each routes it to its own connections.
final class SocialLive: @unchecked Sendable {
    // @unchecked Sendable: `index`, `pending` and `resolving` are only touched on `queue`.
    let configuration: LiveConfiguration
    private let pool: DatabasePool
    private let outbox: LocalOutbox
    private let cluster: ClusterNode?
    private let logger: Logger
    /// Protects the index and the resolver's queue of changes.
    let queue = DispatchQueue(label: "switchboard.social")
    // protected by queue
    private var index = SocialIndex()
    // protected by queue: changes published and not resolved yet
    private var pending: [SocialChange] = []
    // protected by queue: a batch is being resolved
    private var resolving = false
    // protected by queue: failed attempts at the batch now at the head of `pending` (see `resolveNext`)
    private var failedAttempts = 0

    init(
        configuration: LiveConfiguration, pool: DatabasePool, outbox: LocalOutbox, cluster: ClusterNode?, logger: Logger
    ) {
        self.configuration = configuration
        self.pool = pool
        self.outbox = outbox
        self.cluster = cluster
        self.logger = logger
    }

    // MARK: publishing

    /// Tells every live page of a change (after its commit). Non-blocking, on any queue: the change is resolved
    /// and routed later, off the caller's database path.
    func publish(_ change: SocialChange) {
        queue.async { [self] in
            pending.append(change)
            resolveNext()
        }
    }

    /// Attempts at one batch before its changes are given up (pauses of 100, 200 and 400 ms between them).
    static let maxAttempts = 3

    private func resolveNext() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !resolving, !pending.isEmpty else { return }
        let count = min(pending.count, configuration.resolveBatch)
        let batch = Array(pending.prefix(count))
        pending.removeFirst(count)
        resolving = true
        let reposters = configuration.countsReposters
        pool.withConnection(on: queue, { db in try Self.resolve(db, batch, reposters: reposters) }) { [self] result in
            resolving = false
            switch result {
            case .success(let routed):
                if !routed.isEmpty {
                    route(routed)
                    if let cluster {
                        let bytes = ClusterWire.social(node: cluster.node, payload: SocialRouted.encode(routed))
                            .encoded()
                        cluster.metrics.busMessagesSent.increment()
                        cluster.bus.broadcast(bytes)
                    }
                }
            case .failure(let error):
                if let error = error as? PostgresError, error.kind == .closed {
                    // Shutting down: nothing left to tell.
                    logger.debug("social: live changes dropped at shutdown", metadata: ["sb.count": "\(batch.count)"])
                } else if failedAttempts < Self.maxAttempts {
                    // A passing failure (a lost connection, the pool overloaded): the same batch again, in order,
                    // after a pause that grows with each failure.
                    failedAttempts += 1
                    pending.insert(contentsOf: batch, at: 0)
                    resolving = true
                    let delay = 50 * (1 << failedAttempts)
                    logger.warning(
                        "social: live changes will be retried",
                        metadata: [
                            "sb.error": "\(error)", "sb.count": "\(batch.count)", "sb.attempt": "\(failedAttempts)",
                        ])
                    queue.asyncAfter(deadline: .now() + .milliseconds(delay)) { [self] in
                        resolving = false
                        resolveNext()
                    }
                    return
                } else {
                    // Live pages missed these; a client learns of them when it resumes (`live.subscribe` with `since`).
                    logger.error(
                        "social: live changes could not be resolved",
                        metadata: ["sb.error": "\(error)", "sb.count": "\(batch.count)"])
                }
            }
            failedAttempts = 0
            resolveNext()
        }
    }

    /// Reads what each change needs and encodes its events once (on a pooled connection's queue). Counts (and
    /// photos) of one post asked for several times in the batch are read once, at the place of the last ask.
    /// `reposters`: how many of a post's newest reposters' followers also get its counts and photos.
    static func resolve(_ db: PostgresConnection, _ batch: [SocialChange], reposters: Int) throws -> [SocialRouted] {
        var lastCounts: [Int64: Int] = [:]
        var lastPhotos: [Int64: Int] = [:]
        for (i, change) in batch.enumerated() {
            switch change {
            case .counts(let id): lastCounts[id] = i
            case .photos(let id): lastPhotos[id] = i
            default: break
            }
        }
        let created = batch.compactMap { if case .postCreated(let id) = $0 { id } else { nil } }
        let posts = try PostRepository.posts(db, ids: created, viewer: 0)
        var out: [SocialRouted] = []
        var profiles: [Int64] = []
        for (i, change) in batch.enumerated() {
            switch change {
            case .postCreated(let id):
                guard let post = posts[id] else { continue }
                let route = LivePostRoute(
                    postId: id, seq: post.seq, authorId: post.author.userId, authorProtected: post.author.protected,
                    threadRoot: post.threadRoot, replyToUser: post.replyToUser?.userId,
                    originalAuthor: post.repostOf?.author.userId)
                out.append(.post(route, event: ProtocolCodec.encodeEvent(LiveEvents.PostNew(post: post))))
                profiles.append(post.author.userId)
            case .postDeleted(let id, let author, let root, let seq):
                let event = LiveEvents.PostDeleted(postId: id, seq: seq, authorId: author, threadRoot: root)
                let bytes = ProtocolCodec.encodeEvent(event)
                out.append(.deleted(postId: id, seq: seq, authorId: author, threadRoot: root, event: bytes))
                profiles.append(author)
            case .counts(let id):
                guard lastCounts[id] == i, let f = try SocialLiveRepository.facts(db, postId: id) else { continue }
                let event = LiveEvents.PostCounts(
                    postId: id, likeCount: f.likeCount, repostCount: f.repostCount, replyCount: f.replyCount)
                out.append(
                    .counts(
                        postId: id, authorId: f.authorId, authorProtected: f.authorProtected,
                        threadKey: f.threadRoot ?? id,
                        reposters: try SocialLiveRepository.reposters(db, of: id, limit: reposters),
                        event: ProtocolCodec.encodeEvent(event)))
            case .photos(let id):
                guard lastPhotos[id] == i, let f = try SocialLiveRepository.facts(db, postId: id) else { continue }
                let photos = try MomentRepository.postPhotos(db, postIds: [id])[id] ?? []
                out.append(
                    .photos(
                        postId: id, authorId: f.authorId, authorProtected: f.authorProtected,
                        threadKey: f.threadRoot ?? id,
                        reposters: try SocialLiveRepository.reposters(db, of: id, limit: reposters),
                        event: ProtocolCodec.encodeEvent(LiveEvents.PostPhotos(postId: id, photos: photos))))
            case .notified(let userId, let notificationId):
                guard let row = try SocialNotifications.notification(db, userId: userId, id: notificationId),
                    let actor = try SocialGraphRepository.socialUsers(db, ids: [row.actorId])[row.actorId]
                else { continue }
                let unread = try SocialNotifications.unread(db, userId: userId)
                let event = LiveEvents.NotificationEvent(
                    notification: LiveEvents.Notification(
                        id: row.id, kind: row.kind.rawValue, actor: actor, postId: row.postId,
                        createdAt: row.createdAt),
                    unread: unread)
                out.append(.notification(userId: userId, event: ProtocolCodec.encodeEvent(event)))
            case .followChanged(let follower, let followee, let active):
                out.append(.follow(followerId: follower, followeeId: followee, active: active))
                profiles.append(contentsOf: [follower, followee])
            case .blockChanged(let blocker, let blocked, let active):
                out.append(.block(blockerId: blocker, blockedId: blocked, active: active))
                profiles.append(contentsOf: [blocker, blocked])
            case .muteChanged(let muter, let muted, let active):
                out.append(.mute(muterId: muter, mutedId: muted, active: active))
            }
        }
        var seen = Set<Int64>()
        let users = profiles.filter { seen.insert($0).inserted }
        for counts in try SocialLiveRepository.profileCounts(db, users: users) {
            out.append(.profileCounts(userId: counts.userId, event: ProtocolCodec.encodeEvent(counts)))
        }
        return out
    }

    /// A resolved batch from another node (the bus); on the subscriber's queue.
    func received(_ payload: [UInt8]) {
        guard let routed = SocialRouted.decode(payload) else {
            cluster?.metrics.busMessagesMalformed.increment()
            logger.error("social: a malformed live batch from the bus was dropped")
            return
        }
        queue.async { [self] in route(routed) }
    }

    /// Applies graph changes to the index and hands each event to this node's connections it routes to.
    private func route(_ routed: [SocialRouted]) {
        dispatchPrecondition(condition: .onQueue(queue))
        var batch = OutboxBatch()
        for change in routed {
            let delivery: SocialDelivery
            switch change {
            case .post(let r, let event):
                delivery = SocialDelivery(kind: .post, postId: r.postId, seq: r.seq, bytes: event)
            case .deleted(let id, let seq, _, _, let event):
                delivery = SocialDelivery(kind: .deleted, postId: id, seq: seq, bytes: event)
            case .counts(let id, _, _, _, _, let event):
                delivery = SocialDelivery(kind: .counts, postId: id, bytes: event)
            case .photos(let id, _, _, _, _, let event):
                delivery = SocialDelivery(kind: .photos, postId: id, bytes: event)
            case .profileCounts(_, let event), .notification(_, let event):
                delivery = SocialDelivery(kind: .other, bytes: event)
            case .follow, .block, .mute:
                index.apply(change)
                continue
            }
            batch.add(.social(delivery), to: index.recipients(change))
        }
        if !batch.isEmpty { outbox.post(batch) }
    }

    // MARK: subscriptions

    /// Whether this node knows `user`'s relations, and the graph version now.
    func relationsState(of user: Int64) async -> (known: Bool, version: UInt64) {
        await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: (index.knows(user), index.graphVersion)) }
        }
    }

    /// Subscribes a connection (on the queue); refused when the connection closed meanwhile.
    func add(
        _ connection: ConnectionID, user: Int64, streams: [(LiveStream, key: Int64, owner: Int64)],
        relations: SocialLiveRepository.Relations?,
        readAt version: UInt64?
    ) async -> Result<[String], SocialIndex.AddError> {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                // Detached before `connectionClosed` is queued: a subscription after the close would never be removed.
                guard outbox.isAttached(connection) else { return continuation.resume(returning: .success([])) }
                continuation.resume(
                    returning: index.add(
                        connection, user: user, streams: streams, relations: relations, readAt: version,
                        limit: configuration.maxSubscriptions))
            }
        }
    }

    /// Unsubscribes; returns what is left.
    func remove(_ connection: ConnectionID, streams: [LiveStream]) async -> [String] {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                index.remove(connection, streams: streams)
                continuation.resume(returning: index.streams(of: connection))
            }
        }
    }

    /// A connection closed: its subscriptions die with it.
    func connectionClosed(_ connection: ConnectionID) {
        queue.async { [self] in index.remove(connection) }
    }

    /// The streams of a connection (tests).
    func streams(of connection: ConnectionID) async -> [String] {
        await withCheckedContinuation { continuation in
            queue.async { [self] in continuation.resume(returning: index.streams(of: connection)) }
        }
    }
}
