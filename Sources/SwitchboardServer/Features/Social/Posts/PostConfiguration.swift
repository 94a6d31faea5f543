//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain

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
