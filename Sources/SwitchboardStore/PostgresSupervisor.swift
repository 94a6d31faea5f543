//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging

/// Restarts an ``EmbeddedPostgres`` whose server died, with back-off; see
/// ``EmbeddedPostgres/supervise(checkInterval:initialBackoff:maxBackoff:onChange:)``.
final class PostgresSupervisor: @unchecked Sendable {
    // @unchecked Sendable: the mutable fields are protected by `queue` (every method but `begin`/`stop` runs
    // on it, and those two hop onto it).
    private let queue = DispatchQueue(label: "switchboard.postgres.supervisor")
    // Weak: the server owns its supervisor; set once in init, read on `queue`.
    private weak var postgres: EmbeddedPostgres?
    private let logger: Logger
    private let checkInterval: Double
    private let initialBackoff: Double
    private let maxBackoff: Double
    private let onChange: @Sendable (Bool) -> Void
    // protected by queue
    private var timer: (any DispatchSourceTimer)?
    // protected by queue: when the server went down (nil while it runs).
    private var downSince: ContinuousClock.Instant?
    // protected by queue
    private var nextAttempt = ContinuousClock.now
    // protected by queue
    private var backoff: Double
    // protected by queue
    private var attempts = 0
    // protected by queue
    private var stopped = false

    init(
        postgres: EmbeddedPostgres, logger: Logger, checkInterval: Double, initialBackoff: Double, maxBackoff: Double,
        onChange: @escaping @Sendable (Bool) -> Void
    ) {
        self.postgres = postgres
        self.logger = logger
        self.checkInterval = checkInterval
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.onChange = onChange
        backoff = initialBackoff
    }

    func begin() {
        queue.async { [self] in
            guard !stopped, timer == nil else { return }
            let source = DispatchSource.makeTimerSource(queue: queue)
            source.schedule(deadline: .now() + checkInterval, repeating: checkInterval)
            source.setEventHandler { [weak self] in self?.check() }
            timer = source
            source.resume()
        }
    }

    deinit { timer?.cancel() }

    /// Ends the supervision; waits for a check in progress (a restart attempt) to finish.
    func stop() {
        queue.sync {
            stopped = true
            timer?.cancel()
            timer = nil
        }
    }

    private func check() {
        dispatchPrecondition(condition: .onQueue(queue))
        guard !stopped, let postgres else { return }
        if downSince == nil {
            guard let status = postgres.reapExitedChild() else { return }
            downSince = .now
            nextAttempt = .now
            backoff = initialBackoff
            attempts = 0
            logger.warning(
                "Embedded PostgreSQL exited; restarting it",
                metadata: [StoreLogKey.event: "exited", "status": "\(status)"])
            onChange(false)
        }
        guard let since = downSince, ContinuousClock.now >= nextAttempt else { return }
        attempts += 1
        do {
            _ = try postgres.start()
            downSince = nil
            logger.warning(
                "Embedded PostgreSQL restarted",
                metadata: [
                    StoreLogKey.event: "restarted", "attempts": "\(attempts)", "down": "\(ContinuousClock.now - since)",
                ])
            onChange(true)
        } catch {
            logger.debug(
                "Embedded PostgreSQL restart failed",
                metadata: [StoreLogKey.event: "restart-failed", "error": "\(error)"])
            nextAttempt = .now + .milliseconds(Int(backoff * 1000))
            backoff = min(backoff * 2, maxBackoff)
        }
    }
}
