//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct ThreadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thread", abstract: "A post's thread: its ancestors, the post, its direct replies (oldest first).")
    @OptionGroup var global: Global
    @Argument(help: "The post.") var postId: String
    @Option(help: "Replies after this seq (the previous page's hint).") var after: Int64?
    @Option(help: "Replies per page (1-100).") var limit: Int?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.showThread(postId, after: after, limit: limit)
            return .ok
        }
    }
}
