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

final class StormRun: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is confined to `loop.queue`.
    let loop: EventLoop
    let file: UsersFile
    let count: Int
    let ramp: Double
    var clients: [LoopClient] = []
    var started: [UInt64] = []
    var authSent: [UInt64] = []
    var authIds: [Int] = []
    var opened = 0
    var authenticated = 0
    var lastAuthenticated: UInt64 = 0
    var t0: UInt64 = 0
    var connectToAuth = makeHistogram()
    var authOnly = makeHistogram()
    var presenceEvents = 0
    var snapshots = 0
    var snapshotEntries = 0
    var seesFriendOnline: [Bool] = []
    var userIndex: [Int: Int] = [:]  // user id -> index
    var friendOf: [Int] = []
    var errors = 0
    var firstErrors: [String] = []
    var closing = false
    var timer: (any DispatchSourceTimer)?

    init(loop: EventLoop, file: UsersFile, count: Int, ramp: Double) {
        self.loop = loop
        self.file = file
        self.count = count
        self.ramp = ramp
        seesFriendOnline = Array(repeating: false, count: count)
        friendOf = Array(repeating: -1, count: count)
        for pair in file.pairs where pair.a < count && pair.b < count {
            friendOf[pair.a] = pair.b
            friendOf[pair.b] = pair.a
        }
        for i in 0..<count { userIndex[file.users[i].id] = i }
    }

    func error(_ text: String) {
        errors += 1
        if firstErrors.count < 10 { firstErrors.append(text) }
    }

    func start() {
        loop.assertOnLoop()
        started = Array(repeating: 0, count: count)
        authSent = Array(repeating: 0, count: count)
        authIds = Array(repeating: -1, count: count)
        t0 = EventLoop.now()
        let t = DispatchSource.makeTimerSource(queue: loop.queue)
        t.setEventHandler { [unowned self] in tick() }
        t.schedule(deadline: .now(), repeating: .milliseconds(1), leeway: .microseconds(200))
        t.resume()
        timer = t
    }

    private func tick() {
        let due = ramp <= 0 ? count : min(count, Int(Double(EventLoop.now() - t0) / 1e9 / ramp * Double(count)) + 1)
        while clients.count < due { open(clients.count) }
        if clients.count == count {
            timer?.cancel()
            timer = nil
        }
    }

    private func open(_ i: Int) {
        let client = LoopClient(index: i, hostHeader: "\(file.host):\(file.port)")
        client.onOpen = { [unowned self] c in
            opened += 1
            authSent[c.index] = EventLoop.now()
            authIds[c.index] = c.request("\"op\":\"authenticate\",\"token\":\"\(file.users[c.index].token)\"")
        }
        client.onText = { [unowned self] c, bytes in received(c, bytes) }
        client.onClose = { [unowned self] c, reason in
            if !closing { error("connection \(c.index) closed: \(reason)") }
        }
        clients.append(client)
        started[i] = EventLoop.now()
        loop.open(client, host: file.host, port: file.port)
    }

    private func received(_ c: LoopClient, _ bytes: [UInt8]) {
        switch Wire.classify(bytes) {
        case .reply(let id):
            guard id == authIds[c.index] else { return }
            authIds[c.index] = -1
            authenticated += 1
            let now = EventLoop.now()
            lastAuthenticated = now
            _ = connectToAuth.record(now - started[c.index])
            _ = authOnly.record(now - authSent[c.index])
        case .error:
            error("client \(c.index): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
        case .event:
            guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else { return }
            let friend = friendOf[c.index]
            switch object["ev"] as? String {
            case "presence":
                presenceEvents += 1
                if let user = object["user_id"] as? Int, userIndex[user] == friend,
                    object["status"] as? String == "online"
                {
                    seesFriendOnline[c.index] = true
                }
            case "presence.snapshot":
                snapshots += 1
                for entry in object["presence"] as? [[String: Any]] ?? [] {
                    snapshotEntries += 1
                    if let user = entry["user_id"] as? Int, userIndex[user] == friend,
                        entry["status"] as? String == "online"
                    {
                        seesFriendOnline[c.index] = true
                    }
                }
            default: break
            }
        }
    }

    func closeAll() {
        loop.assertOnLoop()
        closing = true
        timer?.cancel()
        timer = nil
        for c in clients { c.close() }
    }
}

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
