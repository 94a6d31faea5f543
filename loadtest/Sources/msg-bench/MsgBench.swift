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

/// Options shared by the scenarios.
struct RunOptions: ParsableArguments {
    @Option(help: "Users file written by setup.") var users = "msg-bench-users.json"
    @Option(help: "Seconds measured.") var duration = 10.0
    @Option(help: "Seconds of sending before measuring.") var warmup = 2.0
    @Option(help: "Unacknowledged sends per sender.") var window = 16
    @Option(help: "Total messages per second (0: as fast as the windows allow).") var rate = 0.0
    @Option(help: "Characters of each text message.") var textSize = 32
    @Option(help: "Seconds to wait for outstanding acks and deliveries after sending stops.") var drainTimeout = 15.0
    @Option(
        help:
            "Server PID: report its CPU (and its children's, the embedded PostgreSQL) over the window; repeat it for the nodes of a cluster (their CPU is summed)."
    ) var serverPid: [Int32] = []
    @Option(
        help:
            "Comma-separated server addresses, all on the users file's port (a cluster's nodes): client i connects to the (i mod n)-th. Default: the users file's host."
    ) var hosts: String?

    /// The addresses clients connect to.
    func hostList(_ file: UsersFile) -> [String] {
        let list = (hosts ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
        return list.isEmpty ? [file.host] : list
    }
    @Flag var json = false
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

struct Fanout: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Group fan-out: every member of the setup's group online, a few senders; deliveries/s and send-to-receive latency."
    )

    @OptionGroup var options: RunOptions
    @Option(help: "Senders (the first members of the group).") var senders = 1

    func run() throws {
        let file = try UsersFile.load(options.users)
        guard let group = file.groupId, file.groupSize >= 3 else {
            throw ValidationError("the users file has no group (setup --group-size)")
        }
        guard senders >= 1 && senders <= file.groupSize else { throw ValidationError("--senders 1...group size") }
        let loopGroup = try EventLoopGroup(loopCount: 1)
        let members = Array(file.users[0..<file.groupSize])
        let run = SendRun(
            loop: loopGroup.loops[0], hosts: options.hostList(file), port: file.port, users: members,
            senders: (0..<senders).map { SenderSpec(client: $0, conversationId: group) },
            recipientsPerMessage: file.groupSize - 1, window: options.window, rate: options.rate,
            textSize: options.textSize)
        defer { loopGroup.shutdown() }
        try drive(run, options: options, extra: ["scenario": "fanout", "group_size": file.groupSize])
    }
}

struct Direct: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "One-to-one: pairs of friends online, one sender per pair (or both); stored messages/s and ack latency.")

    @OptionGroup var options: RunOptions
    @Option(help: "Pairs used (default: all pairs of the users file).") var pairs: Int?
    @Flag(help: "Both users of a pair send.") var both = false

    func run() throws {
        let file = try UsersFile.load(options.users)
        let count = min(pairs ?? file.pairs.count, file.pairs.count)
        guard count >= 1 else { throw ValidationError("the users file has no pairs (setup --pairs)") }
        let used = Array(file.pairs[0..<count])
        var users: [BenchUser] = []
        var specs: [SenderSpec] = []
        for pair in used {
            users.append(file.users[pair.a])
            users.append(file.users[pair.b])
            specs.append(SenderSpec(client: users.count - 2, conversationId: pair.conversationId))
            if both { specs.append(SenderSpec(client: users.count - 1, conversationId: pair.conversationId)) }
        }
        let loopGroup = try EventLoopGroup(loopCount: 1)
        let run = SendRun(
            loop: loopGroup.loops[0], hosts: options.hostList(file), port: file.port, users: users, senders: specs,
            recipientsPerMessage: 1, window: options.window, rate: options.rate, textSize: options.textSize)
        defer { loopGroup.shutdown() }
        try drive(run, options: options, extra: ["scenario": "direct", "pairs": count])
    }
}
