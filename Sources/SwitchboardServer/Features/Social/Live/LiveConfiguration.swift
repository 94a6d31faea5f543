//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Limits of live pages (`serve` flags `--max-subscriptions`, `--live-replay-max`, `--live-counts-reposters`).
public struct LiveConfiguration: Sendable, Equatable {
    /// Streams one connection may be subscribed to.
    public var maxSubscriptions = 16
    /// Posts and deletions a resume (`live.subscribe` with `since`) returns at most; beyond, `resync_required`.
    public var replayMax = 200
    /// A post's newest reposters whose followers' live home pages also get its `post.counts` and `post.photos`
    /// (0: only the author's followers).
    public var countsReposters = 100
    /// Changes resolved together (one database connection, one bus message).
    public var resolveBatch = 256
    /// Live social events a connection holds while its resume is read, beyond which it is closed (1013).
    public var maxHeld = 10_000
    public init() {}
}
