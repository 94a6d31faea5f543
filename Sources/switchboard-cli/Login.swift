//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log in and save the session in the profile.")
    @OptionGroup var global: Global
    @Option(help: "Phone number.") var phone: String
    @Flag(help: "Read the password from the first line of stdin (else env SWITCHBOARD_PASSWORD, else a prompt).")
    var passwordStdin = false
    @Option(help: "Device name shown in the session list.") var device: String?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            let password = try Terminal.readPassword(
                fromStdin: passwordStdin, environment: context.environment, confirm: false)
            try await context.login(phone: phone, password: password, device: device)
            return .ok
        }
    }
}
