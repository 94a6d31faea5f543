//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Report: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Report a message or a user to the administrators.", subcommands: [Message.self, User.self])

    struct Message: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Report the message at SEQ of a chat (a friend, a group or #conversation).")
        @OptionGroup var global: Global
        @Argument(help: "The chat: a friend, a group or a conversation id.") var conversation: String
        @Argument(help: "The message's sequence number in that chat.") var seq: Int64
        @Option(help: "spam, harassment, hate, violence, sexual, self_harm, illegal, impersonation or other.")
        var reason: String
        @Option(help: "Optional words for the administrators.") var text: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.reportMessage(conversation: conversation, seq: seq, reason: reason, text: text)
                return .ok
            }
        }
    }

    struct User: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Report a friend or someone in one of your chats.")
        @OptionGroup var global: Global
        @Argument(help: "Their display name, or #USER_ID.") var name: String
        @Option(help: "spam, harassment, hate, violence, sexual, self_harm, illegal, impersonation or other.")
        var reason: String
        @Option(help: "Optional words for the administrators.") var text: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.reportUser(name, reason: reason, text: text)
                return .ok
            }
        }
    }
}
