//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Following: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Who a user follows, newest first (default: you).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    @Option(help: "The page after this cursor (the previous page's hint).") var before: Int64?
    @Option(help: "Users per page (1-100).") var limit: Int?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.followList(followers: false, target: user, before: before, limit: limit)
            return .ok
        }
    }
}
