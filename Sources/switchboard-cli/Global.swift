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

struct Global: ParsableArguments {
    @Option(help: "Server URL (env SWITCHBOARD_URL; default: the profile's, else ws://127.0.0.1:8080/ws).")
    var server: String?

    @Option(
        help:
            "Config folder (env SWITCHBOARD_CONFIG_DIR; default $XDG_CONFIG_HOME/switchboard or ~/.config/switchboard)."
    )
    var configDir: String?

    @Option(help: "Profile name: one saved session per profile (env SWITCHBOARD_PROFILE; default: default).")
    var profile: String?

    @Flag(help: "Print one JSON object per line instead of text.")
    var json = false

    func context() throws(CLIError) -> CLIContext {
        try CLIContext(
            options: GlobalOptions(server: server, configDir: configDir, profile: profile, json: json),
            environment: ProcessInfo.processInfo.environment, stdoutIsTerminal: Terminal.stdoutIsTerminal)
    }
}

/// Runs a command body and turns a `CLIError` into its message on stderr and its exit code.
func perform(_ global: Global, _ body: (CLIContext) async throws(CLIError) -> CLIExitCode) async throws {
    let code: CLIExitCode
    do {
        let context = try global.context()
        do {
            code = try await body(context)
        } catch {
            context.printer.error(error.message)
            code = error.exitCode
        }
    } catch {
        Printer(mode: .human(color: false)).error(error.message)
        code = error.exitCode
    }
    if code != .ok { throw ExitCode(code.rawValue) }
}
