//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct DeletePost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete-post", abstract: "Delete your post or repost (administrators: any).")
    @OptionGroup var global: Global
    @Argument(help: "The post.") var postId: String
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.deleteSocialPost(postId)
            return .ok
        }
    }
}
