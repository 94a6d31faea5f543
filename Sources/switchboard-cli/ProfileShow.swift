//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct ProfileShow: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "A profile: handle, bio, stats and how you relate (default: yours).")
    @OptionGroup var global: Global
    @Argument(help: "@handle or a user id.") var user: String?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.showSocialProfile(user)
            return .ok
        }
    }
}
