//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Followers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "A user's followers, newest first (default: yours).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    @Option(help: "The page after this cursor (the previous page's hint).") var before: Int64?
    @Option(help: "Users per page (1-100).") var limit: Int?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.followList(followers: true, target: user, before: before, limit: limit)
            return .ok
        }
    }
}
