//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Limits of live pages of `serve` (`LiveConfiguration`; docs/social.md).
struct LiveOptions: ParsableArguments {
    @Option(help: "Live page streams one connection may subscribe to. [env: SWITCHBOARD_MAX_SUBSCRIPTIONS]")
    var maxSubscriptions: Int = envValue("SWITCHBOARD_MAX_SUBSCRIPTIONS", as: Int.self) ?? 16

    @Option(
        help:
            """
            Posts and deletions a live resume returns at most (beyond, resync_required). [env: \
            SWITCHBOARD_LIVE_REPLAY_MAX]
            """
    )
    var liveReplayMax: Int = envValue("SWITCHBOARD_LIVE_REPLAY_MAX", as: Int.self) ?? 200

    @Option(
        help:
            """
            A post's newest reposters whose followers' live home pages also get its counts and photos (0: only the \
            author's followers). [env: SWITCHBOARD_LIVE_COUNTS_REPOSTERS]
            """
    )
    var liveCountsReposters: Int = envValue("SWITCHBOARD_LIVE_COUNTS_REPOSTERS", as: Int.self) ?? 100

    func validate() throws {
        guard (1...1000).contains(maxSubscriptions), (1...10_000).contains(liveReplayMax),
            (0...10_000).contains(liveCountsReposters)
        else {
            throw ValidationError(
                "live pages: --max-subscriptions 1-1000, --live-replay-max 1-10000, --live-counts-reposters 0-10000")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.live.maxSubscriptions = maxSubscriptions
        c.live.replayMax = liveReplayMax
        c.live.countsReposters = liveCountsReposters
    }
}
