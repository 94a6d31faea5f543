//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The reply to `live.subscribe`.
public struct LiveSubscribeResult: Codable, Sendable, Equatable {
    /// Every stream of this connection.
    public var subscribed: [String]
    /// The post clock now: pass it as `since` when resubscribing.
    public var seq: Int64
    /// Posts missed on the new streams (seq > since), oldest first.
    public var posts: [SocialPost]
    /// Deletions missed on the new streams (deletion seq > since).
    public var deleted: [LiveDeletedPost]
    /// More than `--live-replay-max` missed: `posts` and `deleted` are empty, reload the pages.
    public var resyncRequired: Bool
    public init(subscribed: [String], seq: Int64, posts: [SocialPost], deleted: [LiveDeletedPost], resyncRequired: Bool)
    {
        self.subscribed = subscribed
        self.seq = seq
        self.posts = posts
        self.deleted = deleted
        self.resyncRequired = resyncRequired
    }
}
