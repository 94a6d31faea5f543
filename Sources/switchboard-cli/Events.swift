//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A community's events: list, show, join, drop; admins: create, update, cancel.",
        subcommands: [List.self, Show.self, Join.self, Drop.self, Create.self, Update.self, Cancel.self],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upcoming events in order (--past: ended ones, latest first).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Flag(help: "Ended events instead.") var past = false
        @Option(help: "The page after this cursor.") var cursor: String?
        @Option(help: "Events per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listEvents(community, past: past, cursor: cursor, limit: limit)
                return .ok
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One event.")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.showEvent(event)
                return .ok
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Take part in an event (it shows in your calendar).")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.joinEvent(event, join: true)
                return .ok
            }
        }
    }

    struct Drop: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "No longer take part in an event.")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.joinEvent(event, join: false)
                return .ok
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Publish an event to a community's members (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @OptionGroup var options: EventOptions
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.createEvent(community, fields: try options.fields(context))
                return .ok
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change an event; its participants are notified (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        @OptionGroup var options: EventOptions
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.updateEvent(event, fields: try options.fields(context))
                return .ok
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel an event; its participants are notified (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The event id.") var event: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.cancelEvent(event)
                return .ok
            }
        }
    }
}
