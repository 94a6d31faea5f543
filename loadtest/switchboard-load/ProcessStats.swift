//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// A process's memory and CPU from /proc (the server's, given by --server-pid).
struct ProcessStats: Codable, Sendable {
    /// Resident set size in bytes.
    var rssBytes: Int
    /// User + system CPU seconds so far.
    var cpuSeconds: Double

    enum CodingKeys: String, CodingKey {
        case rssBytes = "rss_bytes", cpuSeconds = "cpu_seconds"
    }

    /// Reads /proc/PID/status and /proc/PID/stat; nil when the process is gone.
    static func read(pid: Int32) -> ProcessStats? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        else { return nil }
        var rss = 0
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            rss =
                (Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "0") ?? 0) * 1024
        }
        // Fields after the command name (which may hold spaces) start after the last ')'.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
        guard fields.count > 13, let utime = Double(fields[11]), let stime = Double(fields[12]) else { return nil }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return ProcessStats(rssBytes: rss, cpuSeconds: (utime + stime) / ticks)
    }

    /// The summed stats of several processes (nil if any is gone).
    static func read(pids: [Int32]) -> ProcessStats? {
        var total = ProcessStats(rssBytes: 0, cpuSeconds: 0)
        for pid in pids {
            guard let s = read(pid: pid) else { return nil }
            total.rssBytes += s.rssBytes
            total.cpuSeconds += s.cpuSeconds
        }
        return total
    }
}
