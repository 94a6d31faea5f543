//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Whoami: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show who the saved session belongs to.")
    @OptionGroup var global: Global

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.whoami()
            return .ok
        }
    }
}
