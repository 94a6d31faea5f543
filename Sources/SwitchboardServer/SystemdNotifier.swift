//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
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
