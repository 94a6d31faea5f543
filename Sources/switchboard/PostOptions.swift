//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Limits of posts, likes and reposts of `serve` (`SocialPostConfiguration`).
struct PostOptions: ParsableArguments {
    @Option(help: "Longest post in characters (grapheme clusters). [env: SWITCHBOARD_MAX_POST_LENGTH]")
    var maxPostLength: Int = envValue("SWITCHBOARD_MAX_POST_LENGTH", as: Int.self) ?? 280

    @Option(help: "Posts (and replies) a user may make at once. [env: SWITCHBOARD_POST_BURST]")
    var postBurst: Double = envValue("SWITCHBOARD_POST_BURST", as: Double.self) ?? 30

    @Option(help: "Seconds until a user may post once more after the burst. [env: SWITCHBOARD_POST_REFILL]")
    var postRefill: Double = envValue("SWITCHBOARD_POST_REFILL", as: Double.self) ?? 30

    @Option(help: "Likes and unlikes a user may make at once. [env: SWITCHBOARD_LIKE_BURST]")
    var likeBurst: Double = envValue("SWITCHBOARD_LIKE_BURST", as: Double.self) ?? 200

    @Option(help: "Seconds per further like or unlike after the burst. [env: SWITCHBOARD_LIKE_REFILL]")
    var likeRefill: Double = envValue("SWITCHBOARD_LIKE_REFILL", as: Double.self) ?? 1

    @Option(help: "Reposts and unreposts a user may make at once. [env: SWITCHBOARD_REPOST_BURST]")
    var repostBurst: Double = envValue("SWITCHBOARD_REPOST_BURST", as: Double.self) ?? 50

    @Option(help: "Seconds per further repost or unrepost after the burst. [env: SWITCHBOARD_REPOST_REFILL]")
    var repostRefill: Double = envValue("SWITCHBOARD_REPOST_REFILL", as: Double.self) ?? 10

    func validate() throws {
        guard (1...10_000).contains(maxPostLength), postBurst >= 1, likeBurst >= 1, repostBurst >= 1, postRefill > 0,
            likeRefill > 0, repostRefill > 0
        else { throw ValidationError("post limits: length 1-10000, bursts at least 1, refills positive") }
    }

    func apply(to c: inout ServerConfiguration) {
        c.posts.maxPostLength = maxPostLength
        c.posts.postBurst = postBurst
        c.posts.postRefillSeconds = postRefill
        c.posts.likeBurst = likeBurst
        c.posts.likeRefillSeconds = likeRefill
        c.posts.repostBurst = repostBurst
        c.posts.repostRefillSeconds = repostRefill
    }
}
