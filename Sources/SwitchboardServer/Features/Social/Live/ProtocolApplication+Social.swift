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

/// Per-connection live page state; protected by the connection's loop queue (owned by `ProtocolApplication`).
struct ConnectionSocial: OutOfLineValue {
    // The Bool is last: it fits in what would be padding (every connection holds this struct).
    /// Resumes (`live.subscribe` with `since`) being read: live events are held meanwhile.
    var holds = 0
    var held: [SocialDelivery] = []
    /// The posts and deletions the last resume sent, up to the clock it read: a live event of the same post that
    /// arrives after it (routed late) is not sent twice.
    var replayedPosts: Set<Int64> = []
    var replayedDeletions: Set<Int64> = []
    var replayedUpTo: Int64 = 0
    /// The connection subscribed once (its subscriptions are removed when it closes).
    var subscribed = false
}

extension ProtocolApplication {
    /// A live page event from the outbox (on the loop).
    func receiveSocial(_ delivery: SocialDelivery) {
        guard !closed else { return }
        if social.holds > 0 {
            social.held.append(delivery)
            if social.held.count > services.social.configuration.maxHeld {
                // The client resubscribes with `since` after reconnecting: nothing is lost.
                port.closeWebSocket(code: 1013, reason: "too many live events during resume")
            }
            return
        }
        deliverSocial(delivery)
    }

    private func deliverSocial(_ delivery: SocialDelivery) {
        switch delivery.kind {
        case .post:
            // Sent by the resume, or deleted by then (the resume carried its deletion).
            if delivery.seq <= social.replayedUpTo
                && (social.replayedPosts.contains(delivery.postId)
                    || social.replayedDeletions.contains(delivery.postId))
            {
                return
            }
            port.sendFanout(delivery.frame)
        case .deleted:
            if delivery.seq <= social.replayedUpTo && social.replayedDeletions.contains(delivery.postId) { return }
            port.sendFanout(delivery.frame)
        case .counts:
            // The latest counts of a post replace a pending unsent one while the connection is backed up.
            sendEphemeral(delivery.bytes, source: "post.counts:\(delivery.postId)")
        case .photos:
            // Likewise the latest photos of a post.
            sendEphemeral(delivery.bytes, source: "post.photos:\(delivery.postId)")
        case .other:
            port.sendFanout(delivery.frame)
        }
    }

    /// A resume starts: live events are held until `endResume`.
    func beginResume() {
        social.subscribed = true
        social.holds += 1
    }

    /// A resume ended (its reply sent, or failed): records what it sent and releases the held events.
    func endResume(clock: Int64?, posts: [Int64], deletions: [Int64]) {
        if let clock {
            social.replayedUpTo = clock
            social.replayedPosts = Set(posts)
            social.replayedDeletions = Set(deletions)
        }
        social.holds -= 1
        guard social.holds == 0 else { return }
        let held = social.held
        social.held = []
        for delivery in held where !closed { deliverSocial(delivery) }
    }
}
