//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Friends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List friends with their presence, or manage friend requests.",
        subcommands: [List.self, Add.self, Accept.self, Decline.self, Requests.self], defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Friends and their presence (default).")
        @OptionGroup var global: Global
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listFriends()
                return .ok
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a friend request to a phone number.")
        @OptionGroup var global: Global
        @Argument(help: "Phone number.") var phone: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.addFriend(phone: phone)
                return .ok
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Accept an incoming friend request.")
        @OptionGroup var global: Global
        @Argument(help: "Request id, the requester's phone number or display name.") var request: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.answerFriendRequest(request, accept: true)
                return .ok
            }
        }
    }

    struct Decline: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decline an incoming friend request.")
        @OptionGroup var global: Global
        @Argument(help: "Request id, the requester's phone number or display name.") var request: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.answerFriendRequest(request, accept: false)
                return .ok
            }
        }
    }

    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Pending friend requests, incoming and outgoing.")
        @OptionGroup var global: Global
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listFriendRequests()
                return .ok
            }
        }
    }
}
