//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import CSwitchboardSys
import Foundation
import Logging
import SwitchboardServer

/// Reads an environment variable.
func env(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}

/// Reads a numeric environment variable strictly: unset or empty is nil (the option's default applies), a value
/// that does not parse as `T` is a start-up error naming the variable (never a silent default).
func envValue<T: LosslessStringConvertible>(_ name: String, as type: T.Type) -> T? {
    guard let text = env(name) else { return nil }
    guard let value = T(text) else { exitWithBadEnvironment(name, text, expected: "\(T.self)".lowercased()) }
    return value
}

/// Reads a boolean environment variable strictly: `1`, `true`, `yes`, `on` or `0`, `false`, `no`, `off`
/// (any case); unset or empty is `defaultValue`; anything else is a start-up error naming the variable.
func envFlag(_ name: String, default defaultValue: Bool = false) -> Bool {
    guard let text = env(name) else { return defaultValue }
    switch text.lowercased() {
    case "1", "true", "yes", "on": return true
    case "0", "false", "no", "off": return false
    default: exitWithBadEnvironment(name, text, expected: "boolean (1/0, true/false, yes/no, on/off)")
    }
}

/// Ends the process with a usage error (64): an environment variable could not be parsed. Option defaults are
/// evaluated while ArgumentParser builds the command, before `validate()`, so this cannot be a `ValidationError`.
func exitWithBadEnvironment(_ name: String, _ value: String, expected: String) -> Never {
    FileHandle.standardError.write(
        Data("Error: environment variable \(name)=\"\(value.prefix(64))\" is not a valid \(expected)\n".utf8))
    exit(64)
}

/// Logs to stderr at info level (`backup`, `restore`) and returns the command's logger.
func bootstrapCommandLogging() -> Logger {
    LoggingSystem.bootstrap { label in
        var handler = StreamLogHandler.standardError(label: label)
        handler.logLevel = .info
        return handler
    }
    return Logger(label: "switchboard")
}

@main
struct SwitchboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "Switchboard: a real-time hub for messaging and call signalling.",
        subcommands: [Serve.self, Migrate.self, HealthCheck.self, Backup.self, Restore.self, Admin.self],
        defaultSubcommand: Serve.self
    )
}
