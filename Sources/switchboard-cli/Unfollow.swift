//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Unfollow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Stop following a user (or withdraw a request).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.unfollowUser(user)
            return .ok
        }
    }
}
