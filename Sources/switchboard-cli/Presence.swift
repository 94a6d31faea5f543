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

struct Presence: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Without a status: friends' presence. With one: set it (for this command's connection).")
    @OptionGroup var global: Global
    @Argument(help: "online or away.") var status: String?

    func validate() throws {
        if let status, Availability(rawValue: status) == nil { throw ValidationError("status must be online or away") }
    }

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.presence(status.flatMap(Availability.init(rawValue:)))
            return .ok
        }
    }
}
