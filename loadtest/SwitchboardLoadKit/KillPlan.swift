//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The kill switch of `switchboard-load run`: at `fraction` of the measured mix, SIGKILL to the given processes
/// (server nodes the operator named; nothing else is ever killed). The clients whose connections end within
/// `attributionWindow` seconds after the kill are taken as the killed nodes' clients: the verdict requires
/// them to fail over, resume and have every message exactly once, like the dropped clients.
public struct KillPlan: Sendable, Equatable {
    /// The processes to kill, in the order given (duplicates removed).
    public let pids: [Int32]
    /// When, as a share of the measured mix (0 < fraction < 1).
    public let fraction: Double
    /// Seconds after the kill in which a client's lost connection counts as caused by it.
    public let attributionWindow: Double

    /// - Returns: nil and a reason when the plan is not acceptable: no PIDs, a PID below 2 (process groups,
    ///   init), the tool's own PID or its parent's, or a fraction outside (0, 1).
    public static func make(
        pids: [Int32], fraction: Double, attributionWindow: Double = 10, ownPid: Int32, parentPid: Int32
    ) -> Result<KillPlan, KillPlanError> {
        guard !pids.isEmpty else { return .failure(.noPids) }
        if let bad = pids.first(where: { $0 < 2 || $0 == ownPid || $0 == parentPid }) {
            return .failure(.refusedPid(bad))
        }
        guard fraction > 0, fraction < 1 else { return .failure(.fractionOutOfRange(fraction)) }
        guard attributionWindow > 0 else { return .failure(.windowOutOfRange(attributionWindow)) }
        var seen = Set<Int32>()
        return .success(
            KillPlan(
                pids: pids.filter { seen.insert($0).inserted }, fraction: fraction, attributionWindow: attributionWindow
            ))
    }

    private init(pids: [Int32], fraction: Double, attributionWindow: Double) {
        self.pids = pids
        self.fraction = fraction
        self.attributionWindow = attributionWindow
    }

    /// The moment of the kill (monotonic nanoseconds) for a mix that starts at `start` and lasts `duration` s.
    public func time(start: UInt64, duration: Double) -> UInt64 {
        start + UInt64((duration * fraction * 1e9).rounded())
    }

    /// Whether a connection lost at `lostAt` counts as caused by a kill at `killedAt` (nil: no kill yet).
    public func attributes(lostAt: UInt64, killedAt: UInt64?) -> Bool {
        guard let killedAt, lostAt >= killedAt else { return false }
        return Double(lostAt - killedAt) <= attributionWindow * 1e9
    }
}
