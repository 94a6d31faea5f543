//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Timeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            A timeline, newest first: home (default), @handle, mentions, likes [@handle], #tag; --follow keeps \
            printing new posts until Ctrl-C.
            """
    )
    @OptionGroup var global: Global
    @Argument(help: "home, @handle, mentions, likes [@handle] or #tag.") var which: [String] = []
    @Option(help: "Posts older than this seq (a likes page: like id), as the previous page's hint shows.") var before:
        Int64?
    @Option(help: "Posts per page (1-100).") var limit: Int?
    @Flag(help: "A user's page with replies.") var replies = false
    @Flag(help: "Keep printing new posts, deletions and counts (home, @handle, mentions) until Ctrl-C.") var follow =
        false
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.timeline(
                TimelineKind.parse(which), before: before, limit: limit, replies: replies, follow: follow)
        }
    }
}
