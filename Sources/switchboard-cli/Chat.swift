//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat with a friend or a group: history, live messages, /more, /voice FILE, /quit.")
    @OptionGroup var global: Global
    @Argument(help: "A friend's name or phone number, a group's name, or a conversation id (#N).") var target: String

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await ChatSession(context: context, target: target).run()
        }
    }
}
