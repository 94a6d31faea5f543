//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Limits of follows of `serve` (`SocialGraphConfiguration`).
struct SocialGraphOptions: ParsableArguments {
    @Option(help: "Follows and unfollows per user in a burst. [env: SWITCHBOARD_FOLLOW_BURST]")
    var followBurst: Int = envValue("SWITCHBOARD_FOLLOW_BURST", as: Int.self) ?? 50

    @Option(help: "Seconds per follow or unfollow regained after the burst. [env: SWITCHBOARD_FOLLOW_REFILL]")
    var followRefill: Double = envValue("SWITCHBOARD_FOLLOW_REFILL", as: Double.self) ?? 20

    @Option(help: "Follows (active and requested) one user may have. [env: SWITCHBOARD_MAX_FOLLOWING]")
    var maxFollowing: Int = envValue("SWITCHBOARD_MAX_FOLLOWING", as: Int.self) ?? 5000

    func validate() throws {
        guard followBurst >= 1, followRefill > 0, maxFollowing >= 1 else {
            throw ValidationError(
                "follows: --follow-burst at least 1, --follow-refill positive, --max-following at least 1")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.socialGraph.followBurst = followBurst
        c.socialGraph.followRefillSeconds = followRefill
        c.socialGraph.maxFollowing = maxFollowing
    }
}
