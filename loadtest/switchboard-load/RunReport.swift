//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardClient
import SwitchboardLoadKit
import SwitchboardTransport

struct RunReport: Codable, Sendable {
    var result: String
    var date: String
    var configuration: [String: String]
    var setup: SetupReport
    var measuredSeconds: Double
    var latencies: [String: LatencySummary]
    var operations: [String: OperationCount]
    var errors: [String: Int]
    var errorSamples: [String]
    var interrupted: [String: Int]
    var recovery: RecoveryResult
    var shortfalls: [String]
    var messagesStored: Int64
    var duplicatesDroppedByClients: Int
    var server: ServerReport?
    var generatorCpuPercentOfACore: Double?
    var budgets: Budgets
    var rows: [VerdictRow]

    enum CodingKeys: String, CodingKey {
        case result, date, configuration, setup, measuredSeconds = "measured_seconds", latencies, operations, errors
        case errorSamples = "error_samples", interrupted = "interrupted_by_drop", recovery, shortfalls
        case messagesStored = "messages_stored", duplicatesDroppedByClients = "duplicates_dropped_by_clients", server
        case generatorCpuPercentOfACore = "generator_cpu_percent_of_a_core"
        case budgets, rows
    }
}
