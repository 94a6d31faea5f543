//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

/// `unpin CHAT SEQ`: unpins a message of a chat.
struct Unpin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Unpin the message at SEQ of a chat.")
    @OptionGroup var global: Global
    @Argument(help: "The chat: a friend, a group or a conversation id (#N).") var chat: String
    @Argument(help: "The message's sequence number in that chat (shown by `pins`).") var seq: Int64

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.unpin(chat: chat, seq: seq)
            return .ok
        }
    }
}
