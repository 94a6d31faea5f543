//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Requests: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Follow requests to your protected account; approve or deny one.")
    @OptionGroup var global: Global
    @Argument(help: "approve or deny.") var action: String?
    @Argument(help: "@handle or a user id of the requester.") var user: String?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.followRequests(action: action, target: user)
            return .ok
        }
    }
}
