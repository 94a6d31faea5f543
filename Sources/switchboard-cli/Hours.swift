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

struct Hours: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show active hours: the last 30 days, or the hours of one date (yours, or a friend's with --user).")
    @OptionGroup var global: Global
    @Argument(help: "A date (YYYY-MM-DD) in the user's time zone: show its hours.") var date: String?
    @Option(help: "A friend's user id (default: yours).") var user: Int64?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.hours(date: date, userId: user)
            return .ok
        }
    }
}
