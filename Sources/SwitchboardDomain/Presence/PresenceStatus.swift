//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// A user's or a device's availability. Ordered: `offline < away < online`.
public enum PresenceStatus: String, Codable, Sendable, Comparable {
    case offline, away, online

    var rank: Int {
        switch self {
        case .offline: 0
        case .away: 1
        case .online: 2
        }
    }

    public static func < (a: PresenceStatus, b: PresenceStatus) -> Bool { a.rank < b.rank }
}
