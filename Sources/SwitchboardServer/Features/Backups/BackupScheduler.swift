//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CoreMetrics
import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardStore

/// Runs ``PostgresBackup/backupInto(root:keep:connectionString:source:logger:now:)`` on a schedule (and, with a WAL
/// archive, ``WALArchive/takeBaseBackup(directory:connectionString:keep:logger:)``), on a private serial queue (a
/// `pg_dump` child process does the work; no loop queue ever waits for it). Runs never overlap: a run longer than
/// the interval delays the next one. Each run is logged; `/metrics` has
/// `switchboard_backup_last_success_timestamp_seconds`, `switchboard_backup_last_duration_seconds`,
/// `switchboard_backup_failures_total` and `switchboard_backup_skipped_total` (turns left to another node).
final class BackupScheduler: @unchecked Sendable {
    // @unchecked Sendable: `timer` and `stopped` are protected by `queue`; the rest is immutable.
    private let queue = DispatchQueue(label: "switchboard.backups", qos: .utility)
    private let schedule: BackupSchedule
    private let connectionString: String
    private let source: String
    private let logger: Logger
    private let lastSuccess: CoreMetrics.Gauge
    private let lastDuration: CoreMetrics.Gauge
    private let failures: CoreMetrics.Counter
    private let baseFailures: CoreMetrics.Counter
    private let skipped: CoreMetrics.Counter
    /// This process among the nodes sharing the database (host, process id and a random part), in `backup_runs`.
    private let node: String
    private let lastBase: CoreMetrics.Gauge
    // protected by queue
    private var timer: (any DispatchSourceTimer)?
    // protected by queue: the base backups of the WAL archive.
    private var baseTimer: (any DispatchSourceTimer)?
    // protected by queue
    private var stopped = false

    init(schedule: BackupSchedule, connectionString: String, embedded: Bool, metrics: ServerMetrics, logger: Logger) {
        self.schedule = schedule
        self.connectionString = connectionString
        self.source = embedded ? "embedded" : "external"
        var logger = logger
        logger[metadataKey: "component"] = "backup"
        self.logger = logger
        lastSuccess = CoreMetrics.Gauge(
            label: "switchboard_backup_last_success_timestamp_seconds", factory: metrics.factory)
        lastDuration = CoreMetrics.Gauge(label: "switchboard_backup_last_duration_seconds", factory: metrics.factory)
        failures = CoreMetrics.Counter(label: "switchboard_backup_failures_total", factory: metrics.factory)
        lastBase = CoreMetrics.Gauge(
            label: "switchboard_wal_base_backup_last_success_timestamp_seconds", factory: metrics.factory)
        baseFailures = CoreMetrics.Counter(
            label: "switchboard_wal_base_backup_failures_total", factory: metrics.factory)
        skipped = CoreMetrics.Counter(label: "switchboard_backup_skipped_total", factory: metrics.factory)
        node =
            "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier):"
            + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    /// Schedules the first run `firstDelay` seconds from now, then every `interval` seconds.
    func start() {
        if schedule.walArchive != nil, source == "embedded" { startBaseBackups() }
        guard schedule.isEnabled else { return }
        queue.async { [self] in
            guard !stopped, timer == nil else { return }
            let timerSource = DispatchSource.makeTimerSource(queue: queue)
            timerSource.schedule(
                deadline: .now() + max(0, schedule.firstDelay), repeating: schedule.interval, leeway: .seconds(1))
            timerSource.setEventHandler { [weak self] in self?.runOnce() }
            timer = timerSource
            timerSource.resume()
            logger.info(
                "scheduled backups",
                metadata: [
                    "directory": "\(schedule.directory ?? "")", "every_seconds": "\(schedule.interval)",
                    "keep": "\(schedule.keep)",
                ])
        }
    }

    /// Cancels the schedule; waits for a run in progress to finish (its backup is then complete).
    func stop() {
        queue.sync {
            stopped = true
            timer?.cancel()
            timer = nil
            baseTimer?.cancel()
            baseTimer = nil
        }
    }

    /// A base backup into the WAL archive at once if the newest is older than the interval (or none), then every
    /// interval.
    private func startBaseBackups() {
        queue.async { [self] in
            guard !stopped, baseTimer == nil, let archive = schedule.walArchive else { return }
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let newest = WALArchive.baseBackups(in: archive).last.flatMap { formatter.date(from: $0.info.finishedAt) }
            let age = newest.map { Date().timeIntervalSince($0) } ?? .infinity
            let first = max(0, min(schedule.walBaseInterval - age, schedule.walBaseInterval))
            let timerSource = DispatchSource.makeTimerSource(queue: queue)
            timerSource.schedule(deadline: .now() + first, repeating: schedule.walBaseInterval, leeway: .seconds(1))
            timerSource.setEventHandler { [weak self] in self?.takeBaseBackup() }
            baseTimer = timerSource
            timerSource.resume()
            logger.info(
                "WAL archiving",
                metadata: ["directory": "\(archive)", "base_every_seconds": "\(schedule.walBaseInterval)"])
        }
    }

    private func takeBaseBackup() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped, let archive = schedule.walArchive else { return }
        do {
            try WALArchive.takeBaseBackup(
                directory: archive, connectionString: connectionString, keep: schedule.walBaseKeep, logger: logger)
            lastBase.record(Date().timeIntervalSince1970)
        } catch {
            baseFailures.increment()
            logger.error("base backup failed", metadata: ["directory": "\(archive)", "error": "\(error)"])
        }
    }

    /// One scheduled backup, unless another node of the cluster is taking one or took one recently: a connection
    /// of its own holds a session-level advisory lock for the whole dump (a node that dies mid-dump releases it
    /// with its connection), and a backup another node finished within the last 90% of the interval skips this
    /// node's turn. Every node with the same schedule then takes turns instead of dumping the same database each.
    private func runOnce() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped, let directory = schedule.directory else { return }
        let started = ContinuousClock.now
        var lock: PostgresConnection?
        defer { lock?.close() }
        do {
            let connection = try PostgresConnection(connectionString: connectionString, queue: queue, logger: logger)
            lock = connection
            guard try BackupRunRepository.tryLock(connection) else {
                skipped.increment()
                logger.info("scheduled backup skipped: another node is taking one")
                return
            }
            let since = Date().addingTimeInterval(-schedule.interval * 0.9)
            if let other = try BackupRunRepository.latestByAnotherNode(connection, node: node, since: since) {
                skipped.increment()
                logger.info(
                    "scheduled backup skipped: another node took one recently",
                    metadata: ["node": "\(other.node)", "path": "\(other.path)", "finished": "\(other.finished)"])
                return
            }
            let result = try PostgresBackup.backupInto(
                root: directory, keep: schedule.keep, connectionString: connectionString, source: source,
                logger: logger)
            try BackupRunRepository.record(
                connection, node: node, path: result.path,
                keepSince: Date().addingTimeInterval(-max(schedule.interval * Double(max(1, schedule.keep)), 86_400)))
            try BackupRunRepository.unlock(connection)
            let seconds = (ContinuousClock.now - started) / .seconds(1)
            lastSuccess.record(Date().timeIntervalSince1970)
            lastDuration.record(seconds)
            logger.info(
                "scheduled backup done",
                metadata: ["path": "\(result.path)", "bytes": "\(result.manifest.dumpBytes)", "seconds": "\(seconds)"])
        } catch {
            failures.increment()
            logger.error("scheduled backup failed", metadata: ["directory": "\(directory)", "error": "\(error)"])
        }
    }
}
