//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore

/// Where a social service hands its committed changes to live pages (`SocialChange`: new and deleted posts, counts,
/// notifications, follows, blocks, mutes): `SocialLive` in the server, a recorder in the service tests. A narrow
/// hand-off to an engine, never bytes: the engine resolves, encodes and routes each change itself.
protocol SocialPublisher: Sendable {
    /// Tells live pages of a change, after its commit; returns at once.
    func publish(_ change: SocialChange)
}

extension SocialLive: SocialPublisher {}

extension SocialPublisher {
    /// Tells live pages what a committed post write changed: new posts, deletions, counts (each post once), then
    /// notifications, in that order.
    func publish(_ effects: PostRepository.Effects) {
        for id in effects.created { publish(.postCreated(postId: id)) }
        for d in effects.deleted {
            publish(.postDeleted(postId: d.postId, authorId: d.authorId, threadRoot: d.threadRoot, seq: d.seq))
        }
        for id in Set(effects.counts).sorted() { publish(.counts(postId: id)) }
        for n in effects.notified { publish(.notified(userId: n.userId, notificationId: n.notificationId)) }
    }
}
