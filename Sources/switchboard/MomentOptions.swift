//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardServer

/// Limits of moments and of photos in posts of `serve` (`MomentConfiguration`).
struct MomentOptions: ParsableArguments {
    @Option(help: "Photos one moment may hold. [env: SWITCHBOARD_MOMENT_MAX_PHOTOS]")
    var momentMaxPhotos: Int = envValue("SWITCHBOARD_MOMENT_MAX_PHOTOS", as: Int.self) ?? 9

    @Option(help: "Longest moment caption in characters. [env: SWITCHBOARD_MOMENT_CAPTION_MAX]")
    var momentCaptionMax: Int = envValue("SWITCHBOARD_MOMENT_CAPTION_MAX", as: Int.self) ?? 500

    @Option(help: "Photos one post may hold. [env: SWITCHBOARD_POST_MAX_PHOTOS]")
    var postMaxPhotos: Int = envValue("SWITCHBOARD_POST_MAX_PHOTOS", as: Int.self) ?? 4

    @Option(help: "Most moments in one moments.feed page. [env: SWITCHBOARD_MOMENTS_PAGE_MAX]")
    var momentsPageMax: Int = envValue("SWITCHBOARD_MOMENTS_PAGE_MAX", as: Int.self) ?? 50

    func validate() throws {
        guard (1...9).contains(momentMaxPhotos), (0...10_000).contains(momentCaptionMax),
            (0...4).contains(postMaxPhotos),
            (1...1000).contains(momentsPageMax)
        else { throw ValidationError("moment limits: photos 1-9, caption 0-10000, post photos 0-4, page 1-1000") }
    }

    func apply(to c: inout ServerConfiguration) {
        c.moments.maxPhotos = momentMaxPhotos
        c.moments.captionMax = momentCaptionMax
        c.moments.postMaxPhotos = postMaxPhotos
        c.moments.pageMax = momentsPageMax
    }
}
