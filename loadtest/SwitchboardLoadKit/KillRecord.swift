//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// One process the kill switch signalled.
public struct KillRecord: Codable, Sendable, Equatable {
    public var pid: Int32
    /// Seconds since the start of the measured mix.
    public var atSeconds: Double
    /// "killed", or why not (`kill(2)`'s error, e.g. "no such process").
    public var result: String

    public init(pid: Int32, atSeconds: Double, result: String) {
        self.pid = pid
        self.atSeconds = atSeconds
        self.result = result
    }

    enum CodingKeys: String, CodingKey {
        case pid, atSeconds = "at_s", result
    }
}
