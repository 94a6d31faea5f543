//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Repost: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Repost a post to your followers (--undo: take it back).")
    @OptionGroup var global: Global
    @Argument(help: "The post (the original).") var postId: String
    @Flag(help: "Undo the repost.") var undo = false
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.repostPost(postId, undo: undo)
            return .ok
        }
    }
}
