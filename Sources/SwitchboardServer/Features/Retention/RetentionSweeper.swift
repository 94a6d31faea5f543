//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CoreMetrics
import Dispatch
public import Foundation
public import Logging
import SwitchboardCore
import SwitchboardDomain
public import SwitchboardStore

/// The background retention sweep: every `sweepInterval`, removes what is older than its retention in batches of
/// at most `batchSize` rows, each its own transaction on the database pool's worker queues (never a loop
/// queue). Each batch first takes a PostgreSQL advisory lock (`RetentionRepository.advisoryLockKey`) with
/// `pg_try_advisory_xact_lock`: in a cluster one node sweeps; a node that finds the lock taken ends its sweep
/// and tries again at its next interval. Rows removed are counted in
/// `switchboard_retention_rows_removed_total{kind}`, sweeps in `switchboard_retention_sweeps_total{result}`.
public final class RetentionSweeper: @unchecked Sendable {
    // @unchecked Sendable: the mutable fields are only touched on `queue`.

    /// What a sweep did.
    public struct Outcome: Sendable, Equatable {
        public var callRecords = 0
        public var revokedSessions = 0
        public var tombstones = 0
        public var tombstoneRows = 0
        /// Another node held the lock: this sweep stopped there.
        public var lockBusy = false
        /// A batch failed: the sweep stopped there (logged).
        public var failed = false
    }

    enum Kind: String, CaseIterable {
        case callRecords = "call_records"
        case revokedSessions = "revoked_sessions"
        case tombstones = "tombstone_leftovers"
    }

    /// Most batches one sweep runs (the rest waits for the next sweep).
    static let maxBatchesPerSweep = 100_000

    let settings: RetentionSettings
    private let pool: DatabasePool
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let queue = DispatchQueue(label: "switchboard.retention")
    private let removed: [Kind: CoreMetrics.Counter]
    private let tombstonesPurged: CoreMetrics.Counter
    /// Sweeps by how they ended: `done`, `lock_busy` (another node sweeps), `failed`.
    private let sweeps: [String: CoreMetrics.Counter]
    // protected by queue
    private var timer: (any DispatchSourceTimer)?
    // protected by queue
    private var sweeping = false
    // protected by queue
    private var stopped = false

    /// - Parameter now: The clock the cutoffs are computed from (injected by tests).
    public init(
        settings: RetentionSettings, pool: DatabasePool, metrics: ServerMetrics, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.settings = settings
        self.pool = pool
        self.logger = logger
        self.now = now
        var counters: [Kind: CoreMetrics.Counter] = [:]
        for kind in Kind.allCases {
            counters[kind] = CoreMetrics.Counter(
                label: "switchboard_retention_rows_removed_total", dimensions: [("kind", kind.rawValue)],
                factory: metrics.factory)
        }
        removed = counters
        tombstonesPurged = CoreMetrics.Counter(
            label: "switchboard_retention_tombstones_purged_total", factory: metrics.factory)
        var byResult: [String: CoreMetrics.Counter] = [:]
        for result in ["done", "lock_busy", "failed"] {
            byResult[result] = CoreMetrics.Counter(
                label: "switchboard_retention_sweeps_total", dimensions: [("result", result)], factory: metrics.factory)
        }
        sweeps = byResult
    }

    /// Starts the periodic sweep (nothing when every retention is 0).
    public func start() {
        guard settings.isEnabled else { return }
        queue.async { [self] in
            guard !stopped, timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            // Nodes started together do not all try at the same moment.
            let first = Double.random(in: 5...min(60, max(5, settings.sweepInterval)))
            source.schedule(deadline: .now() + first, repeating: settings.sweepInterval, leeway: .seconds(1))
            source.setEventHandler { [weak self] in self?.sweep { _ in } }
            timer = source
            source.resume()
        }
    }

    /// Stops the timer; a sweep under way ends after its current batch.
    public func stop() {
        queue.sync {
            stopped = true
            timer?.cancel()
            timer = nil
        }
    }

    /// Runs one sweep now (unless one is running: then `completion` gets an empty outcome at once).
    public func sweep(completion: @escaping @Sendable (Outcome) -> Void) {
        queue.async { [self] in
            guard !sweeping, !stopped else { return completion(Outcome()) }
            sweeping = true
            let start = now()
            func cutoff(_ days: Int) -> Date? { days > 0 ? start.addingTimeInterval(-Double(days) * 86_400) : nil }
            var steps: [(Kind, Date)] = []
            if let c = cutoff(settings.callRecordsDays) { steps.append((.callRecords, c)) }
            if let c = cutoff(settings.expiredSessionsDays) { steps.append((.revokedSessions, c)) }
            if let c = cutoff(settings.tombstonesDays) { steps.append((.tombstones, c)) }
            run(steps[...], batches: 0, outcome: Outcome()) { [self] outcome in
                sweeping = false
                sweeps[outcome.failed ? "failed" : outcome.lockBusy ? "lock_busy" : "done"]?.increment()
                let total = outcome.callRecords + outcome.revokedSessions + outcome.tombstoneRows + outcome.tombstones
                if total > 0 {
                    logger.info(
                        "retention sweep removed old rows",
                        metadata: [
                            LogKey.rows: .string(
                                "call_records=\(outcome.callRecords) revoked_sessions=\(outcome.revokedSessions) "
                                    + "tombstones=\(outcome.tombstones) tombstone_leftovers=\(outcome.tombstoneRows)")
                        ])
                }
                completion(outcome)
            }
        }
    }

    /// One batch of the first step, then the rest (on `queue`).
    private func run(
        _ steps: ArraySlice<(Kind, Date)>, batches: Int, outcome: Outcome,
        done: @escaping @Sendable (Outcome) -> Void
    ) {
        guard let (kind, cutoff) = steps.first, !stopped, batches < Self.maxBatchesPerSweep else {
            return done(outcome)
        }
        let limit = max(1, settings.batchSize)
        pool.transaction(
            on: queue,
            { db -> (locked: Bool, rows: Int, tombstones: Int, more: Bool) in
                guard try RetentionRepository.tryLock(db) else { return (false, 0, 0, false) }
                switch kind {
                case .callRecords:
                    let n = try RetentionRepository.deleteCallRecords(db, endedBefore: cutoff, limit: limit)
                    return (true, n, 0, n == limit)
                case .revokedSessions:
                    let n = try RetentionRepository.deleteRevokedSessions(db, revokedBefore: cutoff, limit: limit)
                    return (true, n, 0, n == limit)
                case .tombstones:
                    let r = try RetentionRepository.purgeTombstones(db, deletedBefore: cutoff, limit: limit)
                    return (true, r.rowsRemoved, r.tombstones, r.more)
                }
            },
            completion: { [self, outcome] result in
                var outcome = outcome
                switch result {
                case .failure(let error):
                    logger.error(
                        "retention sweep batch failed; the next sweep tries again",
                        metadata: [LogKey.kind: "\(kind.rawValue)", LogKey.error: "\(error)"])
                    outcome.failed = true
                    return done(outcome)
                case .success(let batch):
                    guard batch.locked else {
                        logger.debug("retention sweep: another node holds the lock")
                        outcome.lockBusy = true
                        return done(outcome)
                    }
                    if batch.rows > 0 { removed[kind]?.increment(by: batch.rows) }
                    if batch.tombstones > 0 { tombstonesPurged.increment(by: batch.tombstones) }
                    switch kind {
                    case .callRecords: outcome.callRecords += batch.rows
                    case .revokedSessions: outcome.revokedSessions += batch.rows
                    case .tombstones:
                        outcome.tombstones += batch.tombstones
                        outcome.tombstoneRows += batch.rows
                    }
                    let rest = batch.more ? steps : steps.dropFirst()
                    queue.asyncAfter(deadline: .now() + settings.batchPause) { [self, outcome] in
                        run(rest, batches: batches + 1, outcome: outcome, done: done)
                    }
                }
            })
    }
}
