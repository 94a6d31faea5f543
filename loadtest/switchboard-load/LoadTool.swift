//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser

/// The latency-budget load tester: drives a Switchboard server through the real protocol with the
/// project's client library, measures every operation with HdrHistogram and judges the run.
@main
struct LoadTool: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard-load",
        abstract: "Load-test a Switchboard server against latency budgets.",
        subcommands: [RunCommand.self, IdleCommand.self, IdleWorkerCommand.self, BudgetsCommand.self],
        defaultSubcommand: RunCommand.self)
}
