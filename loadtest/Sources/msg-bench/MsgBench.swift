//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// msg-bench: messaging benchmarks over protocol v1 (setup, fanout, direct, storm). One event loop on
// Switchboard's transport (the generator is meant to be pinned to one core); only 127.0.0.1.
import ArgumentParser
import Dispatch
import Foundation
import SwitchboardTransport

@main
struct MsgBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msg-bench",
        abstract: "Messaging benchmarks for Switchboard (protocol v1).",
        subcommands: [Setup.self, Fanout.self, Direct.self, Storm.self, Calls.self]
    )
}

/// CPU seconds (user + system) of this process so far.
func ownCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

func seconds(_ ns: UInt64) -> Double { Double(ns) / 1e9 }
func round2(_ v: Double) -> Double { (v * 100).rounded() / 100 }

/// Connects, sends for warm-up + duration, drains, and reports. Exits non-zero on errors or lost deliveries.
func drive(_ run: SendRun, options: RunOptions, extra: [String: Any]) throws {
    let loop = run.loop
    let connectStart = EventLoop.now()
    loop.queue.sync { run.connectAll() }
    let authDeadline = Date().addingTimeInterval(60)
    while Date() < authDeadline {
        let (done, failed) = loop.queue.sync { (run.authenticated == run.users.count, run.errors > 0) }
        if done || failed { break }
        Thread.sleep(forTimeInterval: 0.02)
    }
    let connectSeconds = seconds(EventLoop.now() - connectStart)
    let authenticated = loop.queue.sync { run.authenticated }
    guard authenticated == run.users.count else {
        note("only \(authenticated)/\(run.users.count) authenticated: \(loop.queue.sync { run.firstErrors })")
        throw ExitCode(1)
    }
    note(String(format: "%d connections authenticated in %.2f s", authenticated, connectSeconds))
    Thread.sleep(forTimeInterval: 1)  // presence snapshots and events settle
    loop.queue.sync { run.startSending() }
    Thread.sleep(forTimeInterval: options.warmup)
    let cpu0 = CPUSample.take(pids: options.serverPid)
    let own0 = ownCPUSeconds()
    let t0 = loop.queue.sync { () -> UInt64 in
        run.measuring = true
        return EventLoop.now()
    }
    let sendDeadline = Date().addingTimeInterval(options.duration)
    while Date() < sendDeadline && loop.queue.sync(execute: { run.errors == 0 }) { Thread.sleep(forTimeInterval: 0.05) }
    let t1 = loop.queue.sync { () -> UInt64 in
        run.measuring = false
        run.stopSending()
        return EventLoop.now()
    }
    let cpu1 = CPUSample.take(pids: options.serverPid)
    let own1 = ownCPUSeconds()
    let window = seconds(t1 - t0)
    // Drain: every acknowledged message must reach every recipient.
    let drainDeadline = Date().addingTimeInterval(options.drainTimeout)
    let drainStart = Date()
    while Date() < drainDeadline {
        let settled = loop.queue.sync { run.outstanding == 0 && run.deliveries >= run.acked * run.recipientsPerMessage }
        if settled { break }
        Thread.sleep(forTimeInterval: 0.02)
    }
    let drainSeconds = Date().timeIntervalSince(drainStart)
    var result = extra
    loop.queue.sync {
        let expected = run.acked * run.recipientsPerMessage
        result["connections"] = run.users.count
        result["senders"] = run.senders.count
        result["window"] = run.window
        result["target_rate"] = run.rate
        result["text_size"] = run.textBody.count
        result["seconds"] = round2(window)
        result["sent"] = run.sent
        result["acked"] = run.acked
        result["outstanding"] = run.outstanding
        result["deliveries"] = run.deliveries
        result["expected_deliveries"] = expected
        result["missing_deliveries"] = max(0, expected - run.deliveries)
        result["extra_deliveries"] = max(0, run.deliveries - expected)
        result["messages_per_second"] = Int(Double(run.windowAcked) / window)
        result["sends_per_second"] = Int(Double(run.windowSent) / window)
        result["deliveries_per_second"] = Int(Double(run.windowDeliveries) / window)
        result["delivery_latency_us"] = percentiles(run.deliveryLatency)
        result["ack_latency_us"] = percentiles(run.ackLatency)
        result["auth_latency_ms"] = percentiles(run.authLatency, unit: 1_000_000)
        result["connect_seconds"] = round2(connectSeconds)
        result["drain_seconds"] = round2(drainSeconds)
        result["errors"] = run.errors
        if !run.firstErrors.isEmpty { result["first_errors"] = run.firstErrors }
        result["generator_cpu_percent"] = Int((own1 - own0) / window * 100)
        if let cpu0, let cpu1 {
            let server = cpu1.server - cpu0.server
            let children = cpu1.children - cpu0.children
            result["server_cpu_percent"] = Int(server / window * 100)
            result["postgres_cpu_percent"] = Int(children / window * 100)
            result["server_cpu_seconds"] = round2(server)
            result["postgres_cpu_seconds"] = round2(children)
            // Everything else on the machine (other users' builds and tests): not ours, a confound if large.
            result["other_cpu_percent"] = max(
                0, Int((cpu1.machine - cpu0.machine - server - children - (own1 - own0)) / window * 100))
            if run.windowDeliveries > 0 {
                result["server_cpu_us_per_delivery"] = round2(server / Double(run.windowDeliveries) * 1e6)
            }
            if run.windowAcked > 0 {
                result["server_cpu_us_per_message"] = round2(server / Double(run.windowAcked) * 1e6)
            }
        }
        run.closeAll()
    }
    Thread.sleep(forTimeInterval: 0.3)
    report(result, json: options.json)
    let missing = result["missing_deliveries"] as? Int ?? 0
    let extraDeliveries = result["extra_deliveries"] as? Int ?? 0
    let errors = result["errors"] as? Int ?? 0
    let outstanding = result["outstanding"] as? Int ?? 0
    if errors > 0 || missing > 0 || extraDeliveries > 0 || outstanding > 0 { throw ExitCode(1) }
}
