//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardCLIKit
import SwitchboardClient

#if canImport(Glibc)
import Glibc
#endif

struct Listen: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show every event; answer (a) or decline (d) incoming calls; h hangs up; /quit or Ctrl-C stops.")
    @OptionGroup var global: Global
    @Flag(help: "Answer every incoming call.") var autoAnswer = false
    @Flag(help: "Decline every incoming call.") var autoDecline = false
    @Option(help: "Presence while listening: online or away.") var presence: String?
    @Flag(help: "End when the first answered call ends, with that call's exit code.") var once = false
    @OptionGroup var media: MediaArguments

    func validate() throws {
        if autoAnswer && autoDecline { throw ValidationError("--auto-answer and --auto-decline exclude each other") }
        if let presence, Availability(rawValue: presence) == nil {
            throw ValidationError("--presence must be online or away")
        }
    }

    func run() async throws {
        let policy: ListenSession.Policy = autoAnswer ? .autoAnswer : autoDecline ? .autoDecline : .ask
        try await perform(global) { context throws(CLIError) in
            try await ListenSession(
                context: context, policy: policy, presence: presence.flatMap(Availability.init(rawValue:)),
                media: media.options(video: false), once: once
            ).run()
        }
    }
}
