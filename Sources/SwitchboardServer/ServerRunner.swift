//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
public import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardStore

#if canImport(Glibc)
import Glibc
#endif

/// Runs a server until SIGTERM or SIGINT, then shuts it down gracefully.
public enum ServerRunner {
    /// Starts the server, blocks until a signal has stopped it, returns the process exit code.
    ///
    /// Every path out of here after the embedded PostgreSQL started stops it again: a failed start (a port in
    /// use, a bad certificate) closes the database before returning 1, and a SIGTERM/SIGINT that arrives while
    /// starting is held until the start is over, then shuts down the same way.
    public static func run(configuration: ServerConfiguration, logger: Logger) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        // systemd `Type=notify` (deploy/switchboard.service): READY=1 once listening, STOPPING=1 on a signal.
        let notifier = SystemdNotifier()
        let done = DispatchSemaphore(value: 0)
        let state = RunState()
        let signalQueue = DispatchQueue(label: "switchboard.signals")
        var sources: [any DispatchSourceSignal] = []
        for sig in [SIGTERM, SIGINT] {
            signal(sig, SIG_IGN)  // delivered through the Dispatch source instead
            let source = DispatchSource.makeSignalSource(signal: sig, queue: signalQueue)
            source.setEventHandler {
                logger.info("signal received", metadata: [LogKey.signal: "\(sig == SIGTERM ? "SIGTERM" : "SIGINT")"])
                notifier?.stopping(status: "draining connections")
                state.stop(done: done)
            }
            source.resume()
            sources.append(source)
        }
        defer { withExtendedLifetime(sources) {} }
        notifier?.status("opening the database")
        let database: DatabaseRuntime
        do {
            database = try DatabaseRuntime.open(configuration: configuration, logger: logger)
        } catch {
            logger.critical("could not start", metadata: [LogKey.error: "\(error)"])
            notifier?.status("could not start: \(error)")
            return 1
        }
        let metrics = ServerMetrics(loopCount: configuration.loopCount)
        var cluster: ClusterRuntime?
        var sweeper: RetentionSweeper?
        var watchdog: SystemdWatchdog?
        do {
            var serverRunning: (@Sendable () -> Bool)? = nil
            if let embedded = database.embedded {
                serverRunning = { embedded.isRunning }
            }
            if let clusterConfiguration = configuration.cluster {
                cluster = try ClusterRuntime.join(clusterConfiguration, metrics: metrics, logger: logger)
            }
            let server = try HubServer(
                configuration: configuration, logger: logger, database: database.pool,
                databaseServerRunning: serverRunning,
                cluster: cluster?.node, metrics: metrics)
            let port = try server.start()
            cluster?.start()
            sweeper = RetentionSweeper(
                settings: configuration.retention, pool: database.pool, metrics: metrics, logger: logger)
            sweeper?.start()
            if let notifier {
                notifier.ready(status: "listening on port \(port)")
                if let timeout = SystemdWatchdog.timeout() {
                    let pinger = SystemdWatchdog(
                        timeout: timeout, clock: { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 },
                        probe: { [weak server] answered in server?.probeLoops(answered) },
                        ping: { notifier.watchdogPing() })
                    pinger.start(queue: DispatchQueue(label: "switchboard.watchdog"))
                    watchdog = pinger
                }
            }
            state.started(server, done: done)
        } catch {
            logger.critical("could not start", metadata: [LogKey.error: "\(error)"])
            notifier?.status("could not start: \(error)")
            cluster?.stop()
            database.close()
            return 1
        }
        let backups = BackupScheduler(
            schedule: configuration.backups, connectionString: database.connectionString,
            embedded: database.embedded != nil, metrics: metrics, logger: logger)
        backups.start()
        done.wait()
        watchdog?.stop()
        sweeper?.stop()
        backups.stop()
        cluster?.stop()
        database.close()
        return 0
    }
}

/// The running server and whether a signal asked to stop before it was started.
private final class RunState: @unchecked Sendable {
    // @unchecked Sendable: both fields are protected by `lock`.
    private let lock = NSLock()
    // protected by lock
    private var server: HubServer?
    // protected by lock
    private var stopRequested = false
    // protected by lock: shutdown was called (a second signal does not call it again).
    private var shuttingDown = false

    /// A signal: shuts the server down (once), or remembers the request until it has started.
    func stop(done: DispatchSemaphore) {
        lock.lock()
        stopRequested = true
        let server = shuttingDown ? nil : self.server
        if server != nil { shuttingDown = true }
        lock.unlock()
        server?.shutdown { done.signal() }
    }

    /// The server is listening; shuts it down at once if a signal came during the start.
    func started(_ server: HubServer, done: DispatchSemaphore) {
        lock.lock()
        self.server = server
        let stop = stopRequested && !shuttingDown
        if stop { shuttingDown = true }
        lock.unlock()
        if stop { server.shutdown { done.signal() } }
    }
}
