//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct ResetPassword: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password",
        abstract: "Set a new password with a code sent to the phone (`verify --reset`); other sessions are revoked.")
    @OptionGroup var global: Global
    @Option(help: "Phone number.") var phone: String
    @Option(help: "The code sent to the phone.") var code: String
    @Flag(help: "Read the new password from the first line of stdin (else env SWITCHBOARD_PASSWORD, else a prompt).")
    var passwordStdin = false
    @Option(help: "Device name shown in the session list.") var device: String?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            let password = try Terminal.readPassword(
                fromStdin: passwordStdin, environment: context.environment, confirm: true)
            try await context.resetPassword(phone: phone, code: code, password: password, device: device)
            return .ok
        }
    }
}
