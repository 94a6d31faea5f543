//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

#if canImport(Glibc)
import Glibc
#endif

struct Admin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Moderation (administrators only): reports, removals, suspensions, the audit log.",
        subcommands: [Reports.self, Remove.self, Suspend.self, Reinstate.self, Resolve.self, Audit.self])

    struct Reports: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open reports, newest first (--closed: resolved and dismissed).")
        @OptionGroup var global: Global
        @Flag(help: "Closed reports instead of open ones.") var closed = false
        @Option(help: "Reports older than this report id (paging).") var before: Int64?
        @Option(help: "Reports per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminReports(closed: closed, before: before, limit: limit)
                return .ok
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a message (members see a removed-by-moderation tombstone).")
        @OptionGroup var global: Global
        @Argument(help: "The message id (a report's target_id).") var messageId: Int64
        @Option(help: "Why (kept in the audit log).") var reason: String?
        @Option(help: "The report this acts on (resolved with it).") var report: Int64?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminRemove(messageId: messageId, reason: reason, report: report)
                return .ok
            }
        }
    }

    struct Suspend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Suspend an account: its connections close and it cannot log in.")
        @OptionGroup var global: Global
        @Argument(help: "The user id.") var user: String
        @Option(help: "Why (kept in the audit log).") var reason: String?
        @Option(help: "The report this acts on (resolved with it).") var report: Int64?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminSuspend(user, suspend: true, reason: reason, report: report)
                return .ok
            }
        }
    }

    struct Reinstate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Reinstate a suspended account.")
        @OptionGroup var global: Global
        @Argument(help: "The user id.") var user: String
        @Option(help: "Why (kept in the audit log).") var reason: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminSuspend(user, suspend: false, reason: reason, report: nil)
                return .ok
            }
        }
    }

    struct Resolve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Close a report as resolved (or --dismiss).")
        @OptionGroup var global: Global
        @Argument(help: "The report id.") var report: Int64
        @Flag(help: "Dismiss instead of resolve.") var dismiss = false
        @Option(help: "A note (kept with the report and in the audit log).") var note: String?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminResolve(report: report, dismiss: dismiss, note: note)
                return .ok
            }
        }
    }

    struct Audit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The moderation audit log, newest first.")
        @OptionGroup var global: Global
        @Option(help: "Entries older than this entry id (paging).") var before: Int64?
        @Option(help: "Entries per page (1-100).") var limit: Int?
        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.adminAudit(before: before, limit: limit)
                return .ok
            }
        }
    }
}
