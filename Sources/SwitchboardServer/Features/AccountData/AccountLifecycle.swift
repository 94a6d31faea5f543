//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardWebSocket
import Synchronization

/// Account deletion jobs and data exports, off the loop queues: request tasks and a sweep timer on
/// `switchboard.account`. A deletion is a job row committed with the request, then `DeletionStep`s in bounded
/// batches (each its own transaction under the job row's lock, `SKIP LOCKED`, so only one node works a batch at a
/// time); the sweep at start-up and every `sweepInterval` resumes unfinished jobs.
final class AccountLifecycle: Sendable {
    let configuration: AccountConfiguration
    let exportDirectory: String
    private let pool: DatabasePool
    private let deliveries: Deliveries
    private let logger: Logger
    private let queue = DispatchQueue(label: "switchboard.account")
    /// Where the jobs' and builds' tasks run (Dispatch-backed: never behind code blocking the shared cooperative pool).
    private let executor = DispatchTaskExecutor(label: "switchboard.account.tasks")
    /// Deletion jobs and export builds running in this process (user ids, export ids).
    private let running = Mutex<(deletions: Set<Int64>, exports: Set<Int64>)>(([], []))
    /// Export downloads in progress.
    private let downloads = Mutex(0)
    /// The sweep timer.
    private let timer = SweepTimer()
    /// Every feature's deletion steps in order and export sections (installed once, after every feature registered;
    /// read by each job).
    private let plan = Mutex<(steps: [AccountDeletionStep], sections: [AccountExportSection])>(([], []))

    init(
        configuration: AccountConfiguration, dataDirectory: String, pool: DatabasePool, deliveries: Deliveries,
        logger: Logger
    ) {
        self.configuration = configuration
        self.exportDirectory =
            configuration.exportDirectory ?? (dataDirectory as NSString).appendingPathComponent("exports")
        self.pool = pool
        self.deliveries = deliveries
        self.logger = logger
    }

    /// Installs every feature's deletion steps (in the order a job runs them) and export sections.
    func install(steps: [AccountDeletionStep], sections: [AccountExportSection]) {
        plan.withLock { $0 = (steps, sections) }
    }

    /// Starts the sweep: at once, then every `sweepInterval` seconds.
    func start() {
        timer.start(queue: queue, interval: max(0.5, configuration.sweepInterval)) { [weak self] in self?.sweep() }
    }

    func stop() { timer.stop() }

    // MARK: deletion

    /// Runs (or resumes) the deletion job of `userId` in this process unless it already runs here.
    func runDeletion(userId: Int64) {
        guard running.withLock({ $0.deletions.insert(userId).inserted }) else { return }
        Task(executorPreference: executor) { [self] in
            defer { _ = running.withLock { $0.deletions.remove(userId) } }
            do {
                try await work(userId: userId)
            } catch {
                logger.error(
                    "account deletion interrupted; the sweep resumes it",
                    metadata: [LogKey.userId: "\(userId)", LogKey.error: "\(error)"])
            }
        }
    }

    private func work(userId: Int64) async throws {
        let batch = max(1, configuration.deletionBatchSize)
        let pause = configuration.deletionBatchPause
        for step in plan.withLock({ $0.steps }) {
            while true {
                let outcome = try await pool.withConnection { db in
                    try AccountDeletionRepository.runBatch(db, userId: userId, step: step, limit: batch)
                }
                guard let outcome else { return }  // finished, or another node's batch holds the job
                outcome.afterCommit?()
                if outcome.changed == 0 { break }
                if pause > 0 { try await Task.sleep(nanoseconds: UInt64(pause * 1e9)) }
            }
        }
        if try await pool.withConnection({ db in try AccountDeletionRepository.finish(db, userId: userId) }) {
            logger.info("account deleted", metadata: [LogKey.userId: "\(userId)"])
        }
    }

    // MARK: export

    /// Collects the export's files from every feature's section (`AccountExportRepository.collect`).
    func collect(userId: Int64, exportId: Int64) async throws -> [ExportEntry] {
        let collector = AccountExportCollector(
            pool: pool, userId: userId, exportId: exportId, maxBytes: configuration.exportMaxBytes)
        return try await AccountExportRepository.collect(collector, sections: plan.withLock { $0.sections })
    }

    /// Builds export `id` of `userId` in this process unless it already builds here.
    func buildExport(id: Int64, userId: Int64) {
        guard running.withLock({ $0.exports.insert(id).inserted }) else { return }
        Task(executorPreference: executor) { [self] in
            defer { _ = running.withLock { $0.exports.remove(id) } }
            var file: String? = nil
            var size: Int64? = nil
            var failure: String? = nil
            do {
                let entries = try await collect(userId: userId, exportId: id)
                guard
                    let archive = HTTPStatic.gzip(
                        TarWriter.archive(entries, folder: "switchboard-export-\(id)"), level: 6)
                else {
                    throw ServiceError.invariant("gzip of the export archive failed", message: "gzip failed")
                }
                if archive.count > configuration.exportMaxBytes { throw ExportTooLarge() }
                let name = "export-\(id)-\(UInt64.random(in: 0...UInt64.max)).tar.gz"
                try FileManager.default.createDirectory(atPath: exportDirectory, withIntermediateDirectories: true)
                let path = (exportDirectory as NSString).appendingPathComponent(name)
                try Data(archive).write(to: URL(fileURLWithPath: path + ".part"))
                try FileManager.default.moveItem(atPath: path + ".part", toPath: path)
                file = name
                size = Int64(archive.count)
            } catch is ExportTooLarge {
                failure = "too_large"
            } catch {
                failure = "internal"
                logger.error("data export failed", metadata: [LogKey.userId: "\(userId)", LogKey.error: "\(error)"])
            }
            let (finalFile, finalSize, finalFailure) = (file, size, failure)
            let ttl = configuration.exportTTL
            do {
                let info = try await pool.withConnection { db in
                    try AccountExportRepository.finish(
                        db, id: id, file: finalFile, size: finalSize, ttlSeconds: ttl, error: finalFailure)
                }
                guard let info else {
                    removeFiles(finalFile.map { [$0] } ?? [])
                    return
                }
                deliveries.push(
                    PushEvent(
                        users: [userId], bytes: ProtocolCodec.encodeEvent(AccountEvents.ExportReady(export: info))))
            } catch {
                // Left `building`: the sweep rebuilds it.
                logger.error(
                    "data export not recorded", metadata: [LogKey.userId: "\(userId)", LogKey.error: "\(error)"])
            }
        }
    }

    /// `GET /export/{id}`: the archive, for its owner only (404 for anyone else, an unknown, failed or expired
    /// export).
    func download(id: Int64?, identity: Identity) async -> HTTPResult {
        let notFound = HTTPResult.error(404, "not_found", "no such export")
        guard let id else { return notFound }
        let file: String?
        do {
            file = try await pool.withConnection { db in
                try AccountExportRepository.readyFile(db, id: id, userId: identity.userId)
            }
        } catch {
            let e = ServiceError.from(error)
            return HTTPResult.error(503, e.code.rawValue, e.message, headers: [("Retry-After", "2")])
        }
        guard let file else { return notFound }
        let admitted = downloads.withLock { n in
            guard n < max(1, configuration.maxConcurrentDownloads) else { return false }
            n += 1
            return true
        }
        guard admitted else {
            return HTTPResult.error(
                503, "unavailable", "too many export downloads at once; retry shortly", headers: [("Retry-After", "5")])
        }
        defer { downloads.withLock { $0 -= 1 } }
        guard
            let data = FileManager.default.contents(atPath: (exportDirectory as NSString).appendingPathComponent(file))
        else {
            return notFound
        }
        return HTTPResult(
            status: 200,
            headers: [
                ("Content-Type", "application/gzip"), ("Cache-Control", "private, no-store"),
                ("Content-Disposition", "attachment; filename=\"switchboard-export-\(id).tar.gz\""),
            ], body: Array(data))
    }

    // MARK: sweep

    /// Resumes unfinished deletions, rebuilds exports whose builder died, removes expired exports' files and
    /// leftovers (on `queue`; the database work in a task).
    private func sweep() {
        Task(executorPreference: executor) { [self] in
            do {
                let (jobs, stale, expired) = try await pool.withConnection { db in
                    (
                        try AccountDeletionRepository.unfinished(db, limit: 100),
                        try AccountExportRepository.stale(db, olderThanSeconds: 600),
                        try AccountExportRepository.expire(db)
                    )
                }
                for userId in jobs { runDeletion(userId: userId) }
                for (id, userId) in stale { buildExport(id: id, userId: userId) }
                removeFiles(expired)
                try await removeLeftovers()
            } catch {
                logger.warning("account sweep failed; retried at the next one", metadata: [LogKey.error: "\(error)"])
            }
        }
    }

    /// Files in the export folder that no export names, older than an hour (a build that died after writing).
    private func removeLeftovers() async throws {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: exportDirectory)) ?? []
        guard !names.isEmpty else { return }
        let live = try await pool.withConnection { db in try AccountExportRepository.liveFiles(db) }
        let hourAgo = Date().addingTimeInterval(-3600)
        for name in names where !live.contains(name) && name.hasPrefix("export-") {
            let path = (exportDirectory as NSString).appendingPathComponent(name)
            let modified =
                (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? Date()
            if modified < hourAgo { try? FileManager.default.removeItem(atPath: path) }
        }
    }

    func removeFiles(_ names: [String]) {
        for name in names where !name.contains("/") {
            try? FileManager.default.removeItem(atPath: (exportDirectory as NSString).appendingPathComponent(name))
        }
    }
}

/// A repeating timer held strongly until stopped.
private final class SweepTimer: @unchecked Sendable {
    // @unchecked Sendable: `source` is only touched under `lock`.
    private let lock = NSLock()
    private var source: (any DispatchSourceTimer)?

    func start(queue: DispatchQueue, interval: Double, _ handler: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now(), repeating: interval)
        timer.setEventHandler(handler: handler)
        lock.lock()
        source?.cancel()
        source = timer
        lock.unlock()
        timer.resume()
    }

    func stop() {
        lock.lock()
        source?.cancel()
        source = nil
        lock.unlock()
    }
}
