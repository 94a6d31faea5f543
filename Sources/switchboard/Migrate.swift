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

/// `switchboard migrate`: applies pending schema migrations and prints the schema version.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations and exit.")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        var configuration = ServerConfiguration()
        database.apply(to: &configuration)
        let opened = try DatabaseRuntime.open(configuration: configuration, logger: Logger(label: "switchboard"))
        opened.close()
    }
}
