//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import SwitchboardClient
import SwitchboardLoadKit
import SwitchboardTransport

/// `switchboard-load idle`: holds N authenticated, idle connections and reports the server's memory per
/// connection. One process holds at most ~19,900 sockets on this machine (open-files limit 20,000), so the
/// connections are spread over worker processes (`idle-worker`), and more than that many connections need
/// several server processes (one PostgreSQL): give all their PIDs. Give each server its own loopback address
/// and pass every URL (`--url` once per server; connection j goes to URL j modulo their count): Linux takes the
/// odd half of the ephemeral ports for `connect()` first (about 14,100 here) and, past that, scans the whole
/// range on every connect, system-wide, which stalls all clients for hundreds of milliseconds at a time; ports
/// are reused per destination, so spreading the connections over addresses keeps each under that half.
struct IdleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle",
        abstract: "Hold N idle authenticated connections; report the server's memory per connection.",
        discussion: "Exit status: 0 PASS, 1 FAIL, 2 the run could not be set up.")

    @Option(help: "The servers' WebSocket URLs (repeat for several; loopback addresses 127.0.0.0/8 only).")
    var url: [String] = ["ws://127.0.0.1:8080/ws"]
    @Option(help: "Connections to hold.") var connections = 10_000
    @Option(help: "Users to register; the connections authenticate with their tokens in turn (devices of a session).")
    var users = 500
    @Option(help: "Worker processes (each holds at most 15,000 connections).") var processes: Int?
    @Option(help: "Connections opened per second (all workers together).") var rampRate = 1000.0
    @Option(help: "Seconds to hold the connections after all are open.") var hold = 10.0
    @Option(help: "PIDs of the server processes (their summed RSS is measured).") var serverPid: [Int32] = []
    @Option(help: "Budget: the server's bytes per idle connection.") var maxBytesPerConnection = 16_384
    @Option(help: "Budget: authenticate p99 in milliseconds while connecting.") var maxAuthenticateP99Ms = 100.0
    @Option(help: "Write the JSON report to this file.") var report: String?
    @Option(help: "Concurrent registrations during setup.") var concurrency = 32

    func validate() throws {
        for u in url {
            guard let c = ClientConfiguration(url: u),
                c.endpoint.host.hasPrefix("127.") || c.endpoint.host == "localhost"
            else {
                throw ValidationError("--url must be ws://127.x.y.z:PORT/ws (load goes to this machine only)")
            }
        }
        guard connections >= 1, users >= 2, rampRate > 0, hold >= 0, hold <= 3600 else {
            throw ValidationError("--connections >= 1, --users >= 2, --ramp-rate > 0, 0 <= --hold <= 3600")
        }
    }

    func run() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        var configuration = ClientConfiguration(url: url[0])!
        configuration.offerCompression = false
        let base = configuration
        let setup: Population.Result
        do {
            setup = try await Population(users: users, friends: 2, groups: 0, groupSizes: [3], concurrency: concurrency)
                .create { _ in try SwitchboardClient(configuration: base, loop: group.loops[0]) }
        } catch {
            note("switchboard-load idle: setup failed: \(error)")
            throw ExitCode(2)
        }
        for client in setup.clients { await client.close() }
        let tokensFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "switchboard-load-tokens-\(getpid()).json")
        try JSONEncoder().encode(setup.users.map(\.token)).write(to: tokensFile)
        defer { try? FileManager.default.removeItem(at: tokensFile) }
        try await Task.sleep(nanoseconds: 3_000_000_000)  // the setup connections are gone
        let before = ProcessStats.read(pids: serverPid)
        let heapBefore = heapBytes()

        let workerCount = processes ?? max(1, (connections + 14_999) / 15_000)
        var workers: [(process: Process, input: Pipe, output: Pipe)] = []
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.path
        for w in 0..<workerCount {
            let first = connections * w / workerCount
            let count = connections * (w + 1) / workerCount - first
            let process = Process()
            // Every worker spreads its share over all the URLs (connection j to URL j modulo their count).
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments =
                ["idle-worker"] + url.flatMap { ["--url", $0] } + [
                    "--tokens", tokensFile.path, "--first", "\(first)", "--count", "\(count)",
                    "--ramp-rate", "\(rampRate / Double(workerCount))",
                ]
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            workers.append((process, input, output))
        }
        note("idle: \(workerCount) worker process(es) opening \(connections) connections")
        // Each worker prints one JSON line when all its connections are open (or failed).
        var ready: [WorkerReport] = []
        for worker in workers {
            guard let line = readLine(worker.output),
                let report = try? JSONDecoder().decode(WorkerReport.self, from: Data(line.utf8))
            else {
                note("idle: a worker ended before reporting")
                for w in workers { w.process.terminate() }
                throw ExitCode(2)
            }
            ready.append(report)
        }
        try await Task.sleep(nanoseconds: 3_000_000_000)
        let after = ProcessStats.read(pids: serverPid)
        let heapAfter = heapBytes()
        note("idle: holding for \(hold) s")
        try await Task.sleep(nanoseconds: UInt64(hold * 1e9))
        let afterHold = ProcessStats.read(pids: serverPid)
        // Closing a worker's stdin ends it: it reports how many of its connections are still open, then exits.
        var stillOpen = 0
        for worker in workers {
            try? worker.input.fileHandleForWriting.close()
            if let line = readLine(worker.output),
                let end = try? JSONDecoder().decode(WorkerEnd.self, from: Data(line.utf8))
            {
                stillOpen += end.open
            }
            worker.process.waitUntilExit()
        }
        let opened = ready.reduce(0) { $0 + $1.opened }
        let failed = ready.reduce(0) { $0 + $1.failed }
        let p99 = ready.map(\.authenticateP99Ms).max() ?? 0
        let p50 = ready.map(\.authenticateP50Ms).max() ?? 0
        let openSeconds = ready.map(\.seconds).max() ?? 0
        let connectP50 = ready.map(\.connectP50Ms).max() ?? 0
        let connectP99 = ready.map(\.connectP99Ms).max() ?? 0
        var rows: [VerdictRow] = [
            VerdictRow(
                check: "connections",
                measured:
                    """
                    \(opened) of \(connections) authenticated in \(String(format: "%.1f", openSeconds)) s, \(failed) \
                    failed
                    """,
                budget: "all", pass: opened == connections && failed == 0),
            VerdictRow(
                check: "held", measured: "\(stillOpen) still open after \(hold) s", budget: "all",
                pass: stillOpen == connections),
            VerdictRow(
                check: "connect", measured: "p50 \(connectP50) p99 \(connectP99) (worst worker)", budget: "-",
                pass: true,
                note: "TCP and WebSocket upgrade; reported only"),
            VerdictRow(
                check: "authenticate", measured: "p50 \(p50) p99 \(p99) (worst worker)",
                budget: "p99 <= \(maxAuthenticateP99Ms)", pass: p99 <= maxAuthenticateP99Ms),
        ]
        var perConnection: Int?
        if let before, let after, let afterHold, opened > 0 {
            let bytes = (after.rssBytes - before.rssBytes) / opened
            perConnection = bytes
            rows.append(
                VerdictRow(
                    check: "server memory",
                    measured:
                        """
                        RSS \(before.rssBytes / 1_048_576) -> \(after.rssBytes / 1_048_576) MiB \
                        (\(afterHold.rssBytes / 1_048_576) MiB after the hold): \(bytes) bytes per connection
                        """,
                    budget: "<= \(maxBytesPerConnection) bytes", pass: bytes <= maxBytesPerConnection))
        } else if !serverPid.isEmpty {
            rows.append(
                VerdictRow(check: "server memory", measured: "a server process is gone", budget: "-", pass: false))
        }
        var heapPerConnection: Int?
        if let heapBefore, let heapAfter, opened > 0 {
            heapPerConnection = (heapAfter - heapBefore) / opened
            rows.append(
                VerdictRow(
                    check: "server heap",
                    measured:
                        """
                        \(heapBefore / 1_048_576) -> \(heapAfter / 1_048_576) MiB in use: \(heapPerConnection!) bytes \
                        per connection
                        """,
                    budget: "-", pass: true,
                    note: "switchboard_heap_bytes (glibc mallinfo2) of every server; reported only"))
        }
        print(
            """
            idle: \(connections) connections over \(workerCount) client process(es), \(serverPid.count) server \
            process(es), \(users) users
            """
        )
        print(Verdict.table(rows))
        if let path = report {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let out = IdleReport(
                result: Verdict.passed(rows) ? "PASS" : "FAIL", date: ISO8601DateFormatter().string(from: Date()),
                connections: connections, opened: opened, failed: failed, stillOpen: stillOpen, users: users,
                serverPids: serverPid, rssBytesBefore: before?.rssBytes, rssBytesAfter: after?.rssBytes,
                bytesPerConnection: perConnection, heapBytesBefore: heapBefore, heapBytesAfter: heapAfter,
                heapBytesPerConnection: heapPerConnection, authenticateP50Ms: p50, authenticateP99Ms: p99, rows: rows)
            try encoder.encode(out).write(to: URL(fileURLWithPath: path))
        }
        if !Verdict.passed(rows) { throw ExitCode(1) }
    }

    /// The servers' heap in use, summed over the distinct servers of `--url` (nil if one cannot be read).
    private func heapBytes() -> Int? {
        var total = 0
        var seen = Set<String>()
        for server in url {
            guard let components = URLComponents(string: server),
                seen.insert("\(components.host ?? ""):\(components.port ?? 0)").inserted
            else { continue }
            guard let value = MetricsScrape.value("switchboard_heap_bytes", server: server) else { return nil }
            total += Int(value)
        }
        return total
    }

    private func readLine(_ pipe: Pipe) -> String? {
        var bytes: [UInt8] = []
        let handle = pipe.fileHandleForReading
        while true {
            let chunk = handle.readData(ofLength: 1)
            guard let byte = chunk.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }
}
