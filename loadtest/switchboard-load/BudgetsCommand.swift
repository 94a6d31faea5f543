//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardLoadKit

/// `switchboard-load budgets`: prints the default budgets as a budgets file.
struct BudgetsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "budgets", abstract: "Print the default budgets (a budgets file to edit and pass with --budgets).")

    func run() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        print(String(decoding: try encoder.encode(Budgets.defaults), as: UTF8.self))
    }
}
