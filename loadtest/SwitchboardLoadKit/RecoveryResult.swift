//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The recovery check's result.
public struct RecoveryResult: Codable, Sendable, Equatable {
    /// Clients whose connection was dropped mid-run.
    public var dropped: Int
    /// Of those, clients that afterwards had every message of every conversation exactly once.
    public var recovered: Int
    /// Clients neither dropped nor killed that lack a message or got one twice (should be 0).
    public var othersIncomplete: Int
    /// Clients whose connection a killed server process took down (`--kill-pid`), that failed over to another.
    public var killed: Int
    /// Of those, clients that afterwards had every message of every conversation exactly once.
    public var killedRecovered: Int
    /// The processes killed and when (seconds into the measured mix); empty without `--kill-pid`.
    public var kills: [KillRecord]

    public init(
        dropped: Int, recovered: Int, othersIncomplete: Int, killed: Int = 0, killedRecovered: Int = 0,
        kills: [KillRecord] = []
    ) {
        self.dropped = dropped
        self.recovered = recovered
        self.othersIncomplete = othersIncomplete
        self.killed = killed
        self.killedRecovered = killedRecovered
        self.kills = kills
    }

    /// recovered / dropped (1 when nobody was dropped).
    public var ratio: Double { dropped == 0 ? 1 : Double(recovered) / Double(dropped) }
    /// killedRecovered / killed (1 when no client lost its server).
    public var killedRatio: Double { killed == 0 ? 1 : Double(killedRecovered) / Double(killed) }

    enum CodingKeys: String, CodingKey {
        case dropped, recovered, othersIncomplete, killed, killedRecovered = "killed_recovered", kills
    }
}
