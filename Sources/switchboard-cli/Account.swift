//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Account: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete your account, or download a copy of your data.", subcommands: [Delete.self, Export.self])

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Delete your account for good (asks for the password again); your messages stay as a deleted account's."
        )
        @OptionGroup var global: Global
        @Flag(help: "Read the password from the first line of stdin (else env SWITCHBOARD_PASSWORD, else a prompt).")
        var passwordStdin = false

        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                if !passwordStdin, context.environment["SWITCHBOARD_PASSWORD"] == nil {
                    context.printer.warning(
                        """
                        this deletes your account, friends, voice messages and sessions for good; your messages stay \
                        as a deleted account's
                        """
                    )
                }
                let password = try Terminal.readPassword(
                    fromStdin: passwordStdin, environment: context.environment, confirm: false)
                try await context.deleteAccount(password: password)
                return .ok
            }
        }
    }

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask the server for an archive of your data (.tar.gz), wait for it, and download it.")
        @OptionGroup var global: Global
        @Option(help: "Where to save it (default: switchboard-export-ID.tar.gz here).") var to: String?
        @Option(help: "Seconds to wait for the server to build it.") var timeout: Double = 600

        func run() async throws {
            try await perform(global) { context throws(CLIError) in
                try await context.exportAccount(to: to, timeout: timeout)
                return .ok
            }
        }
    }
}
