//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `msg-bench calls`: concurrent call set-ups between the pairs of friends made by `setup --pairs`. Every
// caller invites its friend (all within --ramp seconds); the callee's device rings; half of the callees
// decline (decline to caller told), the others accept, the caller sends --signals ICE candidates that
// the callee must receive, and the callee hangs up (hang-up to caller told). One process, one clock.
import ArgumentParser
import Dispatch
import Foundation
import SwitchboardTransport

struct Calls: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            """
            Concurrent call set-ups between the pairs of setup --pairs: invite, ring, decline or accept + signals + \
            hang-up.
            """
    )

    @Option(help: "Users file written by setup (with --pairs).") var users = "msg-bench-users.json"
    @Option(help: "Concurrent calls (pairs used; default: every pair).") var calls: Int?
    @Option(help: "ICE candidates the caller sends after the answer.") var signals = 3
    @Option(help: "Seconds over which the invitations are spread (0: all at once).") var ramp = 1.0
    @Option(help: "Seconds to wait for every call to finish.") var timeout = 60.0
    @Option(help: "Server PID: report its CPU over the run.") var serverPid: Int32?
    @Flag var json = false

    func run() throws {
        let file = try UsersFile.load(users)
        let pairs = Array(file.pairs.prefix(calls ?? file.pairs.count))
        guard !pairs.isEmpty else { throw ValidationError("the users file needs pairs (setup --pairs)") }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let run = CallRun(loop: loop, file: file, pairs: pairs, signals: signals, ramp: ramp)
        loop.queue.sync { run.connectAll() }
        let authDeadline = Date().addingTimeInterval(60)
        while Date() < authDeadline {
            if loop.queue.sync(execute: { run.authenticated == pairs.count * 2 || run.errors > 0 }) { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        Thread.sleep(forTimeInterval: 0.5)  // let presence settle
        let cpu0 = CPUSample.take(serverPid)
        let wall0 = Date()
        loop.queue.sync { run.startCalls() }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if loop.queue.sync(execute: { run.finished == pairs.count }) { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let wall = Date().timeIntervalSince(wall0)
        let cpu1 = CPUSample.take(serverPid)
        var result: [String: Any] = [
            "scenario": "calls", "calls": pairs.count, "signals_per_call": signals, "ramp_seconds": ramp,
        ]
        loop.queue.sync {
            result["authenticated"] = run.authenticated
            result["declined"] = run.declined
            result["completed"] = run.completed
            result["invite_to_ring_ms"] = percentiles(run.inviteToRing, unit: 1_000_000)
            result["decline_to_caller_told_ms"] = percentiles(run.declineToCallerTold, unit: 1_000_000)
            result["accept_to_caller_told_ms"] = percentiles(run.acceptToCallerTold, unit: 1_000_000)
            result["last_signal_relayed_ms"] = percentiles(run.signalRelay, unit: 1_000_000)
            result["hangup_to_caller_told_ms"] = percentiles(run.hangupToCallerTold, unit: 1_000_000)
            result["errors"] = run.errors
            if !run.firstErrors.isEmpty { result["first_errors"] = run.firstErrors }
            if let cpu0, let cpu1 {
                result["server_cpu_seconds"] = round2(cpu1.server - cpu0.server)
                result["postgres_cpu_seconds"] = round2(cpu1.children - cpu0.children)
            }
            result["wall_seconds"] = round2(wall)
            run.closeAll()
        }
        Thread.sleep(forTimeInterval: 0.3)
        report(result, json: json)
        let finished = (result["declined"] as? Int ?? 0) + (result["completed"] as? Int ?? 0)
        if (result["errors"] as? Int ?? 1) > 0 || finished < pairs.count { throw ExitCode(1) }
    }
}
