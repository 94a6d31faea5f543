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

/// `switchboard admin grant|revoke|list`: the administrator role (`docs/moderation.md`).
struct Admin: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Grant, revoke or list the administrator role (moderation).",
        subcommands: [Grant.self, Revoke.self, List.self])

    struct Grant: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make the account with this phone number an administrator.")
        @Argument(help: "The account's phone number (E.164, +<country><number>).") var phone: String
        @OptionGroup var database: DatabaseOptions
        func run() throws { try Admin.perform(.grant(phone: phone), database) }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take the administrator role from the account with this phone number.")
        @Argument(help: "The account's phone number (E.164, +<country><number>).") var phone: String
        @OptionGroup var database: DatabaseOptions
        func run() throws { try Admin.perform(.revoke(phone: phone), database) }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the administrators (id, phone, name).")
        @OptionGroup var database: DatabaseOptions
        func run() throws { try Admin.perform(.list, database) }
    }

    static func perform(_ action: Administrators.Action, _ database: DatabaseOptions) throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        var configuration = ServerConfiguration()
        database.apply(to: &configuration)
        do {
            for line in try Administrators.run(
                action, configuration: configuration, logger: Logger(label: "switchboard"))
            { print(line) }
        } catch let failure as Administrators.Failure {
            FileHandle.standardError.write(Data("switchboard admin: \(failure.description)\n".utf8))
            throw ExitCode(1)
        }
    }
}
