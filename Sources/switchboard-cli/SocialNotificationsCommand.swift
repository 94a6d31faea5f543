//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct SocialNotificationsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract:
            "Social notifications, grouped (likes and reposts per post, follows together); --read marks them read.")
    @OptionGroup var global: Global
    @Flag(help: "Mark every notification read.") var read = false
    @Option(help: "Older than this notification id (the previous page's hint).") var before: Int64?
    @Option(help: "Groups per page (1-50).") var limit: Int?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.socialNotifications(read: read, before: before, limit: limit)
            return .ok
        }
    }
}
