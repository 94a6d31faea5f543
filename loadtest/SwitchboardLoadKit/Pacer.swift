//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// An open-loop schedule: operation k of a kind with rate r starts at start + k/r + phase * min(1/r, 1 s), whatever
/// happened to
/// the earlier ones (so a slow server does not slow the offered load; it shows as latency or as operations
/// that could not start). Pure: the caller passes the clock's time in.
///
/// `phase` (a fraction of one period, of at most one second for rare kinds, so that a short run still holds their
/// first operation) keeps schedules of different kinds apart: with one phase for all, every kind whose rate is a whole
/// number came due at each whole second together, and the run offered its load in bursts of one operation of every
/// kind at once (what a crowd of independent users does not do).
public struct Pacer: Sendable, Equatable {
    /// Operations per second.
    public let rate: Double
    /// Where in its period each operation falls, from 0 (at the period's start) up to 1.
    public let phase: Double
    /// Start of the schedule (nanoseconds, monotonic).
    public let start: UInt64
    /// End of the schedule (nanoseconds): nothing is due at or after it.
    public let end: UInt64
    /// Operations handed out so far.
    public private(set) var issued = 0

    public init(rate: Double, start: UInt64, duration: Double, phase: Double = 0) {
        self.rate = rate
        self.phase = phase.isFinite ? min(max(phase, 0), 0.999) : 0
        self.start = start
        self.end = start + UInt64(max(duration, 0) * 1e9)
    }

    /// How many operations the whole schedule holds.
    public var planned: Int {
        guard rate > 0 else { return 0 }
        return Int((Double(end - start) / 1e9 * rate).rounded(.up))
    }

    /// The time operation `k` is due.
    public func due(_ k: Int) -> UInt64 { start + UInt64((Double(k) / rate + phase * min(1 / rate, 1)) * 1e9) }

    /// A phase for the schedule of `kind`, the same in every run (FNV-1a of the name, as a fraction).
    public static func phase(of kind: String) -> Double {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in kind.utf8 { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        return Double(h >> 11) / Double(1 << 53)
    }

    /// The operations due by `now` that were not handed out yet (their indexes), and when the next one is
    /// due (nil: the schedule is over).
    public mutating func take(now: UInt64) -> (due: Range<Int>, next: UInt64?) {
        guard rate > 0 else { return (issued..<issued, nil) }
        let first = issued
        while issued < planned && due(issued) <= now { issued += 1 }
        return (first..<issued, issued < planned ? due(issued) : nil)
    }
}
