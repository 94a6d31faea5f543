//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import SwitchboardCLIKit

struct Hangup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "End this profile's current call from another process (same session, so the same device).")
    @OptionGroup var global: Global
    @Argument(help: "The call id (default: the call a running `call` or `listen` of this profile is in).") var callId:
        String?

    func run() async throws {
        try await perform(global) { context throws(CLIError) in
            try await context.hangup(callId: callId)
            return .ok
        }
    }
}
