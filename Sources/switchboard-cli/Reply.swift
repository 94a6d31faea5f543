//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Reply: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Reply to a post (joins its thread).")
    @OptionGroup var global: Global
    @Argument(help: "The post replied to.") var postId: String
    @Argument(help: "The text (≤ 280 characters).") var text: String
    @Option(help: "A voice recording to attach (WAV, Ogg/Opus or WebM).") var voice: String?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.publishPost(text, replyTo: postId, voiceFile: voice)
            return .ok
        }
    }
}
