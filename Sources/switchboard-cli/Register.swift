//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Register: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create an account and save its session.")
    @OptionGroup var global: Global
    @Option(help: "Phone number (E.164, e.g. +15551234567).") var phone: String
    @Option(help: "Display name.") var name: String
    @Flag(help: "Read the password from the first line of stdin (else env SWITCHBOARD_PASSWORD, else a prompt).")
    var passwordStdin = false
    @Option(help: "Device name shown in the session list.") var device: String?
    @Option(help: "A social handle to take at once (@name: 3-30 of A-Z a-z 0-9 _; taken: nothing is made).") var handle:
        String?
    @Option(help: "The code sent to the phone (`verify --phone NUMBER` asks for it), if the server requires one.")
    var code: String?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            let password = try Terminal.readPassword(
                fromStdin: passwordStdin, environment: context.environment, confirm: true)
            try await context.register(
                phone: phone, name: name, password: password, device: device, handle: handle, code: code)
            return .ok
        }
    }
}
