//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask the server to send a one-time code to a phone, for register --code or reset-password.")
    @OptionGroup var global: Global
    @Option(help: "Phone number (E.164, e.g. +15551234567).") var phone: String
    @Flag(help: "The code is for reset-password (default: for register).") var reset = false

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.requestCode(phone: phone, reset: reset)
            return .ok
        }
    }
}
