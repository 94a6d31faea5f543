//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Dispatch
public import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `WATCHDOG=1` pings at half of `$WATCHDOG_USEC` (as `sd_watchdog_enabled(3)` recommends), and only while the
/// process is alive in the sense that matters: every loop queue ran the probe posted at the previous tick (a
/// wedged loop stops the pings, and systemd restarts the service after `WatchdogSec=`).
///
/// The clock and the probe are injected, so the decision is testable without timers; ``start(queue:)`` drives
/// ``tick()`` from a timer on a private queue.
public final class SystemdWatchdog: @unchecked Sendable {
    // @unchecked Sendable: the mutable fields are protected by `lock`.

    /// Seconds between pings: half of the watchdog timeout.
    public let pingInterval: Double
    private let clock: @Sendable () -> Double
    private let probe: @Sendable (_ answered: @escaping @Sendable () -> Void) -> Void
    private let ping: @Sendable () -> Void
    private let lock = NSLock()
    // protected by lock: when the last ping went out (nil: none yet).
    private var lastPing: Double?
    // protected by lock: a probe was posted and has not answered yet.
    private var probeOutstanding = false
    // protected by lock
    private var timer: (any DispatchSourceTimer)?

    /// The watchdog timeout systemd asked for, in seconds, or nil when it asked for none (`$WATCHDOG_USEC`
    /// unset, zero, unparsable, or `$WATCHDOG_PID` naming another process).
    public static func timeout(environment: [String: String] = ProcessInfo.processInfo.environment, pid: Int32? = nil)
        -> Double?
    {
        let pid = pid ?? getpid()
        guard let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 else { return nil }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty, Int32(owner) != pid { return nil }
        return Double(usec) / 1e6
    }

    /// - Parameters:
    ///   - timeout: The watchdog timeout (seconds); pings go out every half of it.
    ///   - clock: Monotonic seconds.
    ///   - probe: Posts a liveness probe and calls `answered` once it has run (e.g. on every loop queue).
    ///   - ping: Sends `WATCHDOG=1`.
    public init(
        timeout: Double, clock: @escaping @Sendable () -> Double,
        probe: @escaping @Sendable (_ answered: @escaping @Sendable () -> Void) -> Void,
        ping: @escaping @Sendable () -> Void
    ) {
        pingInterval = timeout / 2
        self.clock = clock
        self.probe = probe
        self.ping = ping
    }

    /// One decision: pings when the last ping is `pingInterval` old (or there was none) and the previous probe
    /// has answered; then posts a new probe if none is outstanding. Returns whether it pinged.
    @discardableResult
    public func tick() -> Bool {
        let now = clock()
        lock.lock()
        let due = lastPing.map { now - $0 >= pingInterval } ?? true
        let pinged = due && !probeOutstanding
        if pinged { lastPing = now }
        let postProbe = !probeOutstanding
        if postProbe { probeOutstanding = true }
        lock.unlock()
        if pinged { ping() }
        if postProbe {
            probe { [weak self] in
                guard let self else { return }
                self.lock.lock()
                self.probeOutstanding = false
                self.lock.unlock()
            }
        }
        return pinged
    }

    /// Ticks every quarter of the ping interval on `queue` (so a ping is never more than a quarter late).
    public func start(queue: DispatchQueue) {
        let source = DispatchSource.makeTimerSource(queue: queue)
        let period = max(0.05, pingInterval / 4)
        source.schedule(deadline: .now(), repeating: period, leeway: .milliseconds(Int(period * 100)))
        source.setEventHandler { [weak self] in self?.tick() }
        lock.lock()
        timer = source
        lock.unlock()
        source.resume()
    }

    /// Stops the timer.
    public func stop() {
        lock.lock()
        let source = timer
        timer = nil
        lock.unlock()
        source?.cancel()
    }
}
