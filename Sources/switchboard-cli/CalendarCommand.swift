//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct CalendarCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "The events you joined by day, week, month (a grid, today in brackets) or year, in your time zone.")
    @OptionGroup var global: Global
    @Argument(help: "day, week, month or year.") var range: String = "month"
    @Argument(help: "A date inside the range, YYYY-MM-DD (default: today).") var date: String?
    @Option(help: "An IANA time zone (default: your profile's).") var tz: String?
    @Option(help: "A BCP 47 locale deciding the week's first day (default: your profile's).") var locale: String?
    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.calendar(range: range, date: date, zone: tz, locale: locale)
            return .ok
        }
    }
}
