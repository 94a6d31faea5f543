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
import SwitchboardStore

/// Records each user's connected time: the union of this node's devices of the user, fed by `PresenceHub` (which
/// also reports the other nodes' devices, for the open interval of a read). Finished intervals are written
/// after `flushDelay`, open ones every `checkpointInterval`, in batches, as unions (`ActiveHoursRepository.record`), so
/// two nodes or a repeated write never count a second twice. All state on `queue`; database work on the pool's
/// connection queues.
final class ActiveHoursRecorder: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is only touched on `queue`.
    let queue = DispatchQueue(label: "switchboard.activehours")
    private let pool: DatabasePool
    private let configuration: ActiveHoursConfiguration
    private let logger: Logger
    let localNode: UInt32?
    // protected by queue
    private var tracker: ActiveTimeTracker
    private var flushScheduled = false
    private var writing = false
    /// The intervals of the write in flight (a read counts them: they are neither waiting nor stored yet).
    private var inFlight: [ActiveInterval] = []
    private var writeAgain = false
    private var waiting: [@Sendable () -> Void] = []
    private var timer: (any DispatchSourceTimer)?
    private var reportedDrops = 0

    init(pool: DatabasePool, configuration: ActiveHoursConfiguration, logger: Logger, localNode: UInt32?) {
        self.pool = pool
        self.configuration = configuration
        self.logger = logger
        self.localNode = localNode
        tracker = ActiveTimeTracker(maxPending: configuration.maxPendingIntervals)
    }

    func now() -> Date { configuration.now() }

    /// Starts the checkpoint timer.
    func start() {
        queue.async { [self] in
            guard timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            let interval = max(1, configuration.checkpointInterval)
            source.schedule(deadline: .now() + interval, repeating: interval)
            source.setEventHandler { [weak self] in self?.write(user: nil, then: nil) }
            timer = source
            source.resume()
        }
    }

    /// Stops the timer and writes what is open or waiting (bounded: returns after `timeout` seconds at most).
    func stop(timeout: Double = 3) {
        let done = DispatchSemaphore(value: 0)
        queue.async { [self] in
            timer?.cancel()
            timer = nil
            write(user: nil) { done.signal() }
        }
        _ = done.wait(timeout: .now() + timeout)
    }

    private func isLocal(_ device: Device) -> Bool { localNode.map { device.connection.node == $0 } ?? true }

    func connected(_ device: Device) {
        let local = isLocal(device)
        queue.async { [self] in
            tracker.connect(userId: device.userId, device: device.connection.rawValue, local: local, now: now())
        }
    }

    func disconnected(_ device: Device) {
        queue.async { [self] in
            tracker.disconnect(userId: device.userId, device: device.connection.rawValue, now: now())
            scheduleFlush()
        }
    }

    private func scheduleFlush() {
        guard !flushScheduled, tracker.pendingCount > 0 else { return }
        flushScheduled = true
        queue.asyncAfter(deadline: .now() + max(0, configuration.flushDelay)) { [self] in
            flushScheduled = false
            write(user: nil, then: nil)
        }
    }

    /// Writes one user's recorded and open time now (before its time zone changes), and waits for it.
    func checkpoint(user: Int64) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async { [self] in write(user: user) { continuation.resume() } }
        }
    }

    /// What a read adds to the stored time of a user: unwritten finished intervals and the open one up to now.
    func unrecorded(of userId: Int64) async -> (intervals: [ActiveInterval], now: Date) {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                let at = now()
                continuation.resume(
                    returning: (tracker.unrecorded(of: userId, now: at) + inFlight.filter { $0.userId == userId }, at))
            }
        }
    }

    /// Takes what is due (one user's, or everyone's) and writes it in batches; `then` runs on `queue` after the
    /// write (also when it failed). One write at a time: a write asked for meanwhile runs after it.
    private func write(user: Int64?, then: (@Sendable () -> Void)?) {
        dispatchPrecondition(condition: .onQueue(queue))
        if let then { waiting.append(then) }
        if writing {
            writeAgain = true
            return
        }
        let intervals = tracker.take(now: now(), user: user)
        if tracker.dropped > reportedDrops {
            logger.warning(
                "active hours: intervals dropped while the database was unavailable",
                metadata: ["sb.count": "\(tracker.dropped - reportedDrops)"])
            reportedDrops = tracker.dropped
        }
        let callbacks = waiting
        waiting = []
        guard !intervals.isEmpty else {
            for callback in callbacks { callback() }
            return
        }
        writing = true
        inFlight = intervals
        let batches = stride(from: 0, to: intervals.count, by: max(1, configuration.batchSize)).map {
            Array(intervals[$0..<min($0 + max(1, configuration.batchSize), intervals.count)])
        }
        pool.withConnection(
            on: queue,
            { db -> [[ActiveInterval]] in
                var failed: [[ActiveInterval]] = []
                for batch in batches {
                    do { try db.transaction { db in _ = try ActiveHoursRepository.record(db, batch) } } catch {
                        failed.append(batch)
                    }
                }
                return failed
            },
            completion: { [self] result in
                writing = false
                inFlight = []
                switch result {
                case .success(let failed):
                    if !failed.isEmpty {
                        logger.warning(
                            "active hours: a batch was not recorded (kept for the next write)",
                            metadata: ["sb.count": "\(failed.count)"])
                        tracker.putBack(failed.flatMap { $0 })
                    }
                case .failure(let error):
                    logger.warning(
                        "active hours: not recorded (kept for the next write)", metadata: [LogKey.error: "\(error)"])
                    tracker.putBack(intervals)
                }
                for callback in callbacks { callback() }
                if writeAgain {
                    writeAgain = false
                    write(user: nil, then: nil)
                }
            })
    }
}
