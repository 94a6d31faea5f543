//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit
import SwitchboardClient

// Arguments of communities, events, calendar, course and post (the commands live in SwitchboardCLIKit's
// CommunityCommands.swift). COMMUNITY is `#ID`, `ID` or the community's name.

struct Communities: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Communities: list (joined first, with unread counts), show, join, quit, members, notifications, read; \
            admins: create, update, archive, core.
            """,
        subcommands: [
            List.self, Show.self, Join.self, Quit.self, Members.self, Notifications.self, Read.self, Create.self,
            Update.self,
            Archive.self, Core.self,
        ],
        defaultSubcommand: List.self)

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Joined communities first (with unread counts), then the others, by name.")
        @OptionGroup var global: Global
        @Option(help: "Communities per page (1-100).") var limit: Int?
        @Option(help: "The page after this cursor (as the previous page's hint shows).") var cursor: String?
        @Flag(help: "Every page.") var all = false
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.listCommunities(limit: limit, cursor: cursor, all: all)
                return .ok
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A community; for members its upcoming events and announcements.")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.showCommunity(community)
                return .ok
            }
        }
    }

    struct Join: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Join a community.")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.joinCommunity(community)
                return .ok
            }
        }
    }

    struct Quit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Leave a community (and its upcoming events).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.quitCommunity(community)
                return .ok
            }
        }
    }

    struct Members: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A community's members, core members first (members and admins).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Option(help: "Members per page (1-200).") var limit: Int?
        @Option(help: "The page after this cursor.") var cursor: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.communityMembers(community, limit: limit, cursor: cursor)
                return .ok
            }
        }
    }

    struct Notifications: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "A community's notifications, newest first (● unread).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Option(help: "Notifications older than this seq (paging).") var before: Int64?
        @Option(help: "Notifications per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.communityNotifications(community, before: before, limit: limit)
                return .ok
            }
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Mark a community's notifications read (your other devices clear their dot).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Option(help: "Read up to this seq (default: the newest).") var seq: Int64?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.readCommunity(community, seq: seq)
                return .ok
            }
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a community (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "Its name (1-80 characters, unique among live communities).") var name: String
        @Option(help: "What it is about.") var description: String?
        @Option(help: "A category (≤ 40 characters).") var category: String?
        @Option(help: "A picture URL.") var picture: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.createCommunity(
                    name: name, description: description, category: category, picture: picture)
                return .ok
            }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change a community's name, description, category or picture (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Option(help: "A new name.") var name: String?
        @Option(help: "A new description.") var description: String?
        @Option(help: "A new category.") var category: String?
        @Option(help: "A new picture URL (empty: none).") var picture: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.updateCommunity(
                    community, name: name, description: description, category: category, picture: picture)
                return .ok
            }
        }
    }

    struct Archive: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Archive a community: read-only for its members, hidden from others (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.archiveCommunity(community)
                return .ok
            }
        }
    }

    struct Core: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Appoint a member core member (posts announcements and lessons), or --remove (administrators).")
        @OptionGroup var global: Global
        @Argument(help: "The community: #ID, ID or name.") var community: String
        @Argument(help: "The member's user id (as `communities members` shows it).") var user: String
        @Flag(help: "Make them a plain member again.") var remove = false
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.setCoreMember(community, user: user, core: !remove)
                return .ok
            }
        }
    }
}
