//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Picks users in turn under a per-user quota of the run, the way a server's per-user limits need them spread
/// (`--exports-per-day` 3, `--report-rate` 20 an hour): a cursor moves past each chosen user, so nobody is picked
/// again before every other eligible one had its turn, and a user who used its quota is never picked again.
/// Pure (no clock, no randomness); the caller holds it under a lock.
public struct QuotaRoundRobin: Sendable, Equatable {
    /// Picks allowed per user during the run.
    public let quota: Int
    /// Picks so far, by user index.
    public private(set) var used: [Int: Int] = [:]
    /// The next user index to consider.
    public private(set) var cursor = 0

    public init(quota: Int) { self.quota = quota }

    /// The first user at or after the cursor (cyclically over `0..<count`) that `eligible` accepts, is not
    /// `busy` and has quota left; it is charged one pick and the cursor moves past it. Nil when there is none.
    public mutating func pick(count: Int, busy: Set<Int> = [], eligible: (Int) -> Bool = { _ in true }) -> Int? {
        guard count > 0, quota > 0 else { return nil }
        for j in 0..<count {
            let i = (cursor + j) % count
            guard !busy.contains(i), used[i, default: 0] < quota, eligible(i) else { continue }
            used[i, default: 0] += 1
            cursor = (i + 1) % count
            return i
        }
        return nil
    }

    /// Charges user `i` one pick if it has quota left (for users chosen some other way); returns whether it had.
    public mutating func charge(_ i: Int) -> Bool {
        guard used[i, default: 0] < quota else { return false }
        used[i, default: 0] += 1
        return true
    }

    /// Whether user `i` has quota left.
    public func hasQuota(_ i: Int) -> Bool { used[i, default: 0] < quota }
}
