//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Like: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Like a post (--undo: unlike).")
    @OptionGroup var global: Global
    @Argument(help: "The post.") var postId: String
    @Flag(help: "Unlike.") var undo = false
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.likePost(postId, undo: undo)
            return .ok
        }
    }
}
