//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// `msg-bench storm`: N users (befriended in pairs by setup) connect and authenticate, spread evenly over
// --ramp seconds (0: all at once); reports the time until the last is authenticated, connect-to-authenticated
// latency, presence events and snapshots, and whether every user learnt that its friend is online.
import ArgumentParser
import Dispatch
import Foundation
import SwitchboardTransport

struct Storm: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Presence storm: N users (friends in pairs) connect and authenticate within --ramp seconds.")

    @Option(help: "Users file written by setup (with --pairs).") var users = "msg-bench-users.json"
    @Option(help: "Users connecting (default: all in the file).") var count: Int?
    @Option(help: "Seconds over which the connections are spread evenly (0: all at once).") var ramp = 10.0
    @Option(help: "Seconds to wait for every authentication.") var timeout = 60.0
    @Option(help: "Seconds to keep everyone connected afterwards, collecting presence.") var hold = 3.0
    @Option(help: "Server PID: report its CPU over the storm.") var serverPid: Int32?
    @Flag var json = false

    func run() throws {
        let file = try UsersFile.load(users)
        let n = min(count ?? file.users.count, file.users.count)
        guard n >= 2, !file.pairs.isEmpty else { throw ValidationError("the users file needs pairs (setup --pairs)") }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        let loop = group.loops[0]
        let run = StormRun(loop: loop, file: file, count: n, ramp: ramp)
        let cpu0 = CPUSample.take(serverPid)
        let wall0 = Date()
        loop.queue.sync { run.start() }
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if loop.queue.sync(execute: { run.authenticated == n }) { break }
            Thread.sleep(forTimeInterval: 0.02)
        }
        let wall = Date().timeIntervalSince(wall0)
        let cpu1 = CPUSample.take(serverPid)
        Thread.sleep(forTimeInterval: hold)
        var result: [String: Any] = ["scenario": "storm", "users": n, "ramp_seconds": ramp]
        loop.queue.sync {
            result["opened"] = run.opened
            result["authenticated"] = run.authenticated
            result["seconds_to_last_authenticated"] =
                run.authenticated > 0 ? round2(seconds(run.lastAuthenticated - run.t0)) : -1
            result["connect_to_authenticated_ms"] = percentiles(run.connectToAuth, unit: 1_000_000)
            result["authenticate_reply_ms"] = percentiles(run.authOnly, unit: 1_000_000)
            result["presence_events"] = run.presenceEvents
            result["presence_snapshots"] = run.snapshots
            result["snapshot_entries"] = run.snapshotEntries
            let paired = (0..<n).filter { run.friendOf[$0] >= 0 }
            result["users_with_friend_in_run"] = paired.count
            result["users_seeing_friend_online"] = paired.filter { run.seesFriendOnline[$0] }.count
            result["errors"] = run.errors
            if !run.firstErrors.isEmpty { result["first_errors"] = run.firstErrors }
            if let cpu0, let cpu1 {
                result["server_cpu_seconds"] = round2(cpu1.server - cpu0.server)
                result["postgres_cpu_seconds"] = round2(cpu1.children - cpu0.children)
                result["machine_busy_cpu_seconds"] = round2(cpu1.machine - cpu0.machine)
            }
            result["wall_seconds"] = round2(wall)
            run.closeAll()
        }
        Thread.sleep(forTimeInterval: 0.3)
        report(result, json: json)
        let seeing = result["users_seeing_friend_online"] as? Int ?? 0
        let paired = result["users_with_friend_in_run"] as? Int ?? 0
        if (result["errors"] as? Int ?? 1) > 0 || (result["authenticated"] as? Int ?? 0) < n || seeing < paired {
            throw ExitCode(1)
        }
    }
}
