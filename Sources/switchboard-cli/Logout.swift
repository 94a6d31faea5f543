//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Revoke the session on the server and delete the profile's files.")
    @OptionGroup var global: Global

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.logout()
            return .ok
        }
    }
}
