//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

/// `pins CHAT`: a chat's pinned messages.
struct Pins: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A chat's pinned messages, latest pin first, each with its seq.")
    @OptionGroup var global: Global
    @Argument(help: "The chat: a friend, a group or a conversation id (#N).") var chat: String

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.listPins(chat: chat)
            return .ok
        }
    }
}
