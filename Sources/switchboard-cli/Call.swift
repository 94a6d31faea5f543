//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Call: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Call a friend with real audio (and video) when GStreamer is installed: shows ringing, the outcome and the \
            call's quality; h + Enter or Ctrl-C hangs up.
            """
    )
    @OptionGroup var global: Global
    @Argument(help: "A friend's name, phone number or user id (#N).") var friend: String
    @Flag(help: "A video call (a test pattern, or --video-file).") var video = false
    @Option(help: "Send this SDP offer instead of making one (signalling only).") var offer: String?
    @OptionGroup var media: MediaArguments

    func validate() throws {
        if offer != nil && (media.record != nil || media.play != nil || media.relayOnly) {
            throw ValidationError("--offer sends signalling only: it excludes the media options")
        }
    }

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await CallSession(
                context: context, callee: friend, video: video, offerFile: offer, media: media.options(video: video)
            ).run()
        }
    }
}
