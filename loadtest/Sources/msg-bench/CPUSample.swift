//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// CPU seconds (user + system) of a process and, separately, of its descendants (the embedded PostgreSQL).
struct CPUSample {
    var server: Double
    var children: Double
    /// Busy CPU seconds of the whole machine (all cores), from /proc/stat.
    var machine: Double

    static func machineBusy() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let line = text.split(separator: "\n").first
        else { return 0 }
        let v = line.split(separator: " ").dropFirst().compactMap { Double($0) }
        guard v.count >= 5 else { return 0 }
        let total = v.prefix(8).reduce(0, +)
        return (total - v[3] - v[4]) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The sum over several processes (the nodes of a cluster), nil for none.
    static func take(pids: [Int32]) -> CPUSample? {
        let samples = pids.compactMap { take($0) }
        guard !samples.isEmpty, samples.count == pids.count else { return nil }
        return CPUSample(
            server: samples.map(\.server).reduce(0, +), children: samples.map(\.children).reduce(0, +),
            machine: samples[0].machine)
    }

    static func take(_ pid: Int32?) -> CPUSample? {
        guard let pid else { return nil }
        let tck = Double(sysconf(Int32(_SC_CLK_TCK)))
        func stat(_ p: Int32) -> (ppid: Int32, cpu: Double)? {
            guard let text = try? String(contentsOfFile: "/proc/\(p)/stat", encoding: .utf8),
                let close = text.lastIndex(of: ")")
            else { return nil }
            let fields = text[text.index(after: close)...].split(separator: " ")
            // fields[0] is the state (field 3); utime and stime are fields 14 and 15.
            guard fields.count > 13, let ppid = Int32(fields[1]), let u = Double(fields[11]), let s = Double(fields[12])
            else { return nil }
            return (ppid, (u + s) / tck)
        }
        guard let own = stat(pid) else { return nil }
        var parents: [Int32: Int32] = [:]
        var cpu: [Int32: Double] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let p = Int32(entry), let s = stat(p) else { continue }
            parents[p] = s.ppid
            cpu[p] = s.cpu
        }
        var children = 0.0
        for (p, c) in cpu where p != pid {
            var q = parents[p] ?? 0
            var depth = 0
            while q > 1 && q != pid && depth < 10 {
                q = parents[q] ?? 0
                depth += 1
            }
            if q == pid { children += c }
        }
        return CPUSample(server: own.cpu, children: children, machine: machineBusy())
    }
}
