//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain

/// The per-user token buckets of posts, likes and reposts, shared by every connection of this node (a cluster
/// divides each user's allowance by the nodes the user is connected to, like the other limits). One per server
/// (`ProtocolServices.posts`): posts and moments share the post and like buckets (a moment counts as a post, a
/// moment's like as a like), so the buckets stay in the shared services rather than in either feature.
final class PostLimits: Sendable {
    let configuration: SocialPostConfiguration
    /// `post.create` and `moments.create` per user.
    let posts: SharedRateLimiter<Int64>
    /// `post.like`, `post.unlike`, `moments.like` and `moments.unlike` per user.
    let likes: SharedRateLimiter<Int64>
    /// `post.repost` and `post.unrepost` per user.
    let reposts: SharedRateLimiter<Int64>

    init(_ c: SocialPostConfiguration) {
        configuration = c
        posts = SharedRateLimiter(
            capacity: max(1, c.postBurst), refillPerSecond: 1 / max(0.001, c.postRefillSeconds))
        likes = SharedRateLimiter(
            capacity: max(1, c.likeBurst), refillPerSecond: 1 / max(0.001, c.likeRefillSeconds))
        reposts = SharedRateLimiter(
            capacity: max(1, c.repostBurst), refillPerSecond: 1 / max(0.001, c.repostRefillSeconds))
    }
}
