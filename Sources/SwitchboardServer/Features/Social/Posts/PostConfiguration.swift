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
import SwitchboardTransport

/// The limits of posts, likes, reposts and timelines (docs/protocol.md, "Posts and timelines"); `serve` sets them
/// from its flags (`PostOptions`). Immutable once the server runs.
public struct SocialPostConfiguration: Sendable, Equatable {
    /// The longest post in grapheme clusters (`--max-post-length`).
    public var maxPostLength = 280
    /// `post.create` per user: a burst, then one per `postRefillSeconds` (`--post-burst`, `--post-refill`).
    public var postBurst: Double = 30
    public var postRefillSeconds: Double = 30
    /// `post.like` + `post.unlike` per user (`--like-burst`, `--like-refill`).
    public var likeBurst: Double = 200
    public var likeRefillSeconds: Double = 1
    /// `post.repost` + `post.unrepost` per user (`--repost-burst`, `--repost-refill`).
    public var repostBurst: Double = 50
    public var repostRefillSeconds: Double = 10
    /// Posts per timeline page by default and at most.
    public var defaultPage = 20
    public var maxPage = 100
    /// Ancestors `timeline.thread` shows at most.
    public var maxAncestors = 50

    public init() {}
}

/// The per-user token buckets of posts, likes and reposts, shared by every connection of this node (a cluster
/// divides each user's allowance by the nodes the user is connected to, like the other limits).
final class PostLimits: Sendable {
    let configuration: SocialPostConfiguration
    let posts: SharedRateLimiter<Int64>
    let likes: SharedRateLimiter<Int64>
    let reposts: SharedRateLimiter<Int64>

    init(_ c: SocialPostConfiguration) {
        configuration = c
        posts = SharedRateLimiter(capacity: max(1, c.postBurst), refillPerSecond: 1 / max(0.001, c.postRefillSeconds))
        likes = SharedRateLimiter(capacity: max(1, c.likeBurst), refillPerSecond: 1 / max(0.001, c.likeRefillSeconds))
        reposts = SharedRateLimiter(capacity: max(1, c.repostBurst), refillPerSecond: 1 / max(0.001, c.repostRefillSeconds))
    }

    /// A page size: `limit` or the default, refused outside 1...most.
    func page(_ limit: Int?) throws(ServiceError) -> Int {
        let limit = limit ?? configuration.defaultPage
        guard (1...configuration.maxPage).contains(limit) else { throw ServiceError(.badRequest, "limit must be 1 to \(configuration.maxPage)") }
        return limit
    }
}

extension RequestContext.Snapshot {
    /// Counts one request against `limiter`, or `rate_limited` with `retry_after_ms`.
    func count(_ limiter: SharedRateLimiter<Int64>, _ what: String) throws(ServiceError) {
        if let retryAfter = limiter.attempt(userId, now: EventLoop.now(), sharedBy: limitShare).retryAfterMilliseconds {
            throw ServiceError(.rateLimited, "too many \(what); try again later", extra: ["retry_after_ms": retryAfter])
        }
    }
}
