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

/// The service manager's notification protocol (`sd_notify(3)`), without libsystemd: one datagram of
/// newline-separated `KEY=value` lines to the `AF_UNIX` socket named by `$NOTIFY_SOCKET` (a path, or an
/// abstract name written with a leading `@`). Without `$NOTIFY_SOCKET` (not under systemd `Type=notify`) every
/// call does nothing. Used for `READY=1` once the server listens, `STOPPING=1` when it begins to drain,
/// `STATUS=...` lines and `WATCHDOG=1` pings (``SystemdWatchdog``).
public struct SystemdNotifier: Sendable {
    /// The socket address as given in the environment.
    public let socketPath: String

    /// The notifier for `$NOTIFY_SOCKET`, or nil when it is unset, empty or not a usable address.
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["NOTIFY_SOCKET"], Self.isUsable(path) else { return nil }
        socketPath = path
    }

    /// A path (`/...`) or an abstract name (`@...`) that fits `sun_path`.
    static func isUsable(_ path: String) -> Bool {
        let bytes = path.utf8.count
        guard bytes >= 2, bytes < MemoryLayout.size(ofValue: sockaddr_un().sun_path) else { return false }
        return path.hasPrefix("/") || path.hasPrefix("@")
    }

    /// The datagram for these assignments: `KEY=value` lines joined by newlines. A value's newlines become
    /// spaces (a value is one line; `STATUS=` text comes from log-like strings) and keys are kept as given.
    public static func message(_ fields: [(key: String, value: String)]) -> String {
        fields.map { field in
            let value = field.value.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
            return "\(field.key)=\(value)"
        }.joined(separator: "\n")
    }

    /// Sends one notification; whether the datagram went out (failures are not fatal: the service manager may
    /// be gone, or the unit may not be `Type=notify`).
    @discardableResult
    public func send(_ fields: [(key: String, value: String)]) -> Bool {
        Self.send(Self.message(fields), to: socketPath)
    }

    /// `READY=1` with a status line.
    @discardableResult
    public func ready(status: String) -> Bool { send([("READY", "1"), ("STATUS", status)]) }

    /// `STOPPING=1` with a status line.
    @discardableResult
    public func stopping(status: String) -> Bool { send([("STOPPING", "1"), ("STATUS", status)]) }

    /// `STATUS=...` alone.
    @discardableResult
    public func status(_ text: String) -> Bool { send([("STATUS", text)]) }

    /// `WATCHDOG=1`.
    @discardableResult
    public func watchdogPing() -> Bool { send([("WATCHDOG", "1")]) }

    /// One datagram to an `AF_UNIX` address (`@name`: abstract namespace, no trailing NUL in the length).
    static func send(_ message: String, to path: String) -> Bool {
        guard isUsable(path) else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(path.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in pathBytes.enumerated() { raw[i] = byte }
        }
        // Abstract names count exactly their bytes; paths include the terminating NUL.
        let pathLength = pathBytes.count + (pathBytes[0] == 0 ? 0 : 1)
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + pathLength)
        let payload = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                payload.withUnsafeBytes { bytes in
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), sockaddrPointer, length)
                }
            }
        }
        return sent == payload.count
    }
}

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
