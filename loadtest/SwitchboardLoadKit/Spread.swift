//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// How the load tester's clients are spread over several servers (the nodes of a cluster) and where each
/// fails over to.
public enum Spread {
    /// The order in which client `client` tries the `count` URLs: it starts on URL `client % count`
    /// (round-robin over the clients), and each time its connection ends it moves to the next URL in turn,
    /// wrapping around. The first entry is the client's `endpoint`, the rest its `alternateEndpoints`.
    public static func order(client: Int, count: Int) -> [Int] {
        precondition(count >= 1 && client >= 0)
        return (0..<count).map { (client + $0) % count }
    }

    /// How many of `clients` clients start on each of the `count` URLs.
    public static func startCounts(clients: Int, count: Int) -> [Int] {
        (0..<count).map { u in clients / count + (u < clients % count ? 1 : 0) }
    }
}
