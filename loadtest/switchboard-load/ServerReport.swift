//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

struct ServerReport: Codable, Sendable {
    var pids: [Int32]
    var rssBytesBefore: Int
    var rssBytesAfter: Int
    var cpuSecondsDuringMix: Double
    var cpuPercentDuringMix: Double

    enum CodingKeys: String, CodingKey {
        case pids, rssBytesBefore = "rss_bytes_before", rssBytesAfter = "rss_bytes_after"
        case cpuSecondsDuringMix = "cpu_seconds_during_mix", cpuPercentDuringMix = "cpu_percent_of_a_core"
    }
}
