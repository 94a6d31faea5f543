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

/// `switchboard-load idle-worker`: one process's share of the idle connections (started by `idle`).
struct IdleWorkerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idle-worker", abstract: "Internal: holds a share of `idle`'s connections.", shouldDisplay: false)

    @Option var url: [String]
    @Option var tokens: String
    @Option var first: Int
    @Option var count: Int
    @Option var rampRate: Double

    func run() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let tokenList = try JSONDecoder().decode([String].self, from: Data(contentsOf: URL(fileURLWithPath: tokens)))
        var configuration = ClientConfiguration(url: url[0])!
        let endpoints = url.map { ServerEndpoint(url: $0)! }
        configuration.offerCompression = false
        configuration.reconnect = .disabled
        configuration.establishBaseline = false
        configuration.resumeMessages = false
        configuration.requestTimeout = 30
        let group = try EventLoopGroup(loopCount: 1)
        let recorder = LatencyRecorder()
        let clients = Locked([SwitchboardClient]())
        let failures = Locked((0, String?.none))
        let slow = Locked([String]())
        let started = now()
        var pacer = Pacer(rate: rampRate, start: started, duration: Double(count) / rampRate)
        await withTaskGroup(of: Void.self) { tasks in
            while true {
                let (due, next) = pacer.take(now: now())
                for k in due where k < count {
                    var configuration = configuration
                    configuration.endpoint = endpoints[(first + k) % endpoints.count]
                    tasks.addTask {
                        do {
                            let client = try SwitchboardClient(configuration: configuration, loop: group.loops[0])
                            Task { for await _ in client.events {} }
                            let t0 = now()
                            try await client.connect()
                            let t1 = now()
                            recorder.record("connect", nanoseconds: t1 - t0)
                            if t1 - t0 > 200_000_000 {
                                slow.withLock {
                                    if $0.count < 40 {
                                        $0.append(
                                            """
                                            k=\(k) at \((t0 - started) / 1_000_000) ms: connect \
                                            \((t1 - t0) / 1_000_000) ms
                                            """
                                        )
                                    }
                                }
                            }
                            _ = try await client.authenticate(token: tokenList[(first + k) % tokenList.count])
                            recorder.record(Metric.authenticate, nanoseconds: now() - t1)
                            clients.withLock { $0.append(client) }
                        } catch {
                            failures.withLock { f in
                                f.0 += 1
                                if f.1 == nil { f.1 = "\(error)" }
                            }
                        }
                    }
                }
                guard let next else { break }
                let t = now()
                if next > t { try? await Task.sleep(nanoseconds: next - t) }
            }
        }
        let summaries = recorder.summaries()
        let summary = summaries[Metric.authenticate]
        let connect = summaries["connect"]
        let (failed, firstError) = failures.withLock { $0 }
        let report = WorkerReport(
            opened: clients.withLock { $0.count }, failed: failed, seconds: Double(now() - started) / 1e9,
            authenticateP50Ms: summary?.p50Ms ?? 0, authenticateP99Ms: summary?.p99Ms ?? 0,
            connectP50Ms: connect?.p50Ms ?? 0, connectP99Ms: connect?.p99Ms ?? 0, firstError: firstError)
        print(String(decoding: try JSONEncoder().encode(report), as: UTF8.self))
        fflushStdout()
        for line in slow.withLock({ $0 }) { note("idle-worker \(first): slow \(line)") }
        // Hold until the parent closes stdin.
        _ = FileHandle.standardInput.readDataToEndOfFile()
        var open = 0
        for client in clients.withLock({ $0 }) {
            if case .authenticated = await client.state { open += 1 }
        }
        print(String(decoding: try JSONEncoder().encode(WorkerEnd(open: open)), as: UTF8.self))
        fflushStdout()
        for client in clients.withLock({ $0 }) { await client.close() }
        group.shutdown()
    }
}

/// Flushes stdout (a pipe is block-buffered).
func fflushStdout() { fflush(nil) }
