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

final class CallRun: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is confined to `loop.queue`.
    enum Phase { case idle, invited, ringing, accepted, declined, done }

    let loop: EventLoop
    let file: UsersFile
    let pairs: [BenchPair]
    let signals: Int
    let ramp: Double
    var clients: [LoopClient] = []
    var authIds: [Int] = []
    var authenticated = 0
    var phase: [Phase] = []
    var invitedAt: [UInt64] = []
    var declinedAt: [UInt64] = []
    var acceptedAt: [UInt64] = []
    var hungUpAt: [UInt64] = []
    var signalsSeen: [Int] = []
    var inviteToRing = makeHistogram()
    var declineToCallerTold = makeHistogram()
    var acceptToCallerTold = makeHistogram()
    var signalRelay = makeHistogram()
    var hangupToCallerTold = makeHistogram()
    var lastSignalSentAt: [UInt64] = []
    var completed = 0
    var declined = 0
    var errors = 0
    var firstErrors: [String] = []
    var closing = false
    var started = 0
    var t0: UInt64 = 0
    var timer: (any DispatchSourceTimer)?

    init(loop: EventLoop, file: UsersFile, pairs: [BenchPair], signals: Int, ramp: Double) {
        self.loop = loop
        self.file = file
        self.pairs = pairs
        self.signals = signals
        self.ramp = ramp
        let n = pairs.count
        phase = Array(repeating: .idle, count: n)
        invitedAt = Array(repeating: 0, count: n)
        declinedAt = Array(repeating: 0, count: n)
        acceptedAt = Array(repeating: 0, count: n)
        hungUpAt = Array(repeating: 0, count: n)
        signalsSeen = Array(repeating: 0, count: n)
        lastSignalSentAt = Array(repeating: 0, count: n)
    }

    func error(_ text: String) {
        errors += 1
        if firstErrors.count < 10 { firstErrors.append(text) }
    }

    /// Client 2i is the caller of pair i, client 2i+1 its callee.
    func connectAll() {
        loop.assertOnLoop()
        authIds = Array(repeating: -1, count: pairs.count * 2)
        for (i, pair) in pairs.enumerated() {
            for (slot, user) in [(2 * i, pair.a), (2 * i + 1, pair.b)] {
                let client = LoopClient(index: slot, hostHeader: "\(file.host):\(file.port)")
                client.onOpen = { [unowned self] c in
                    authIds[c.index] = c.request("\"op\":\"authenticate\",\"token\":\"\(file.users[user].token)\"")
                }
                client.onText = { [unowned self] c, bytes in received(c, bytes) }
                client.onClose = { [unowned self] c, reason in
                    if !closing { error("connection \(c.index) closed: \(reason)") }
                }
                clients.append(client)
                loop.open(client, host: file.host, port: file.port)
            }
        }
    }

    func startCalls() {
        loop.assertOnLoop()
        t0 = EventLoop.now()
        let t = DispatchSource.makeTimerSource(queue: loop.queue)
        t.setEventHandler { [unowned self] in tick() }
        t.schedule(deadline: .now(), repeating: .milliseconds(1), leeway: .microseconds(200))
        t.resume()
        timer = t
    }

    private func tick() {
        let due =
            ramp <= 0
            ? pairs.count : min(pairs.count, Int(Double(EventLoop.now() - t0) / 1e9 / ramp * Double(pairs.count)) + 1)
        while started < due {
            let i = started
            started += 1
            phase[i] = .invited
            invitedAt[i] = EventLoop.now()
            _ = clients[2 * i].request(
                "\"op\":\"call.invite\",\"callee_id\":\(file.users[pairs[i].b].id),\"call_id\":\"bench-\(i)\",\"offer\":\"v=0 bench\""
            )
        }
        if started == pairs.count {
            timer?.cancel()
            timer = nil
        }
    }

    /// The pair a client belongs to (clients 2i and 2i + 1 are pair i's caller and callee).
    private func pair(of c: LoopClient) -> Int? {
        let i = c.index / 2
        return i < pairs.count ? i : nil
    }

    private func received(_ c: LoopClient, _ bytes: [UInt8]) {
        let now = EventLoop.now()
        switch Wire.classify(bytes) {
        case .reply(let id):
            if id == authIds[c.index] {
                authIds[c.index] = -1
                authenticated += 1
            }
            return
        case .error:
            error("client \(c.index): \(String(decoding: bytes.prefix(200), as: UTF8.self))")
            return
        case .event:
            break
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let event = object["ev"] as? String, event.hasPrefix("call."), let i = pair(of: c),
            let callId = object["call_id"] as? String  // the server's id (bench-i is only the caller's name for it)
        else { return }
        let isCaller = c.index % 2 == 0
        switch (event, isCaller) {
        case ("call.ring", false):
            _ = inviteToRing.record(now - invitedAt[i])
            phase[i] = .ringing
            if i % 2 == 0 {
                declinedAt[i] = EventLoop.now()
                _ = c.request("\"op\":\"call.decline\",\"call_id\":\"\(callId)\"")
                phase[i] = .declined
            } else {
                acceptedAt[i] = EventLoop.now()
                _ = c.request("\"op\":\"call.accept\",\"call_id\":\"\(callId)\",\"answer\":\"v=0 answer\"")
                phase[i] = .accepted
            }
        case ("call.accepted", true):
            _ = acceptToCallerTold.record(now - acceptedAt[i])
            for k in 0..<signals {
                lastSignalSentAt[i] = EventLoop.now()
                _ = c.request(
                    "\"op\":\"call.signal\",\"call_id\":\"\(callId)\",\"kind\":\"ice_candidate\",\"payload\":\"{\\\"candidate\\\":\\\"candidate:\(k) 1 udp 2122260223 127.0.0.1 5000\(k) typ host\\\",\\\"sdpMid\\\":\\\"0\\\",\\\"sdpMLineIndex\\\":0}\""
                )
            }
        case ("call.signal", false):
            signalsSeen[i] += 1
            if signalsSeen[i] == signals {
                _ = signalRelay.record(now - lastSignalSentAt[i])
                hungUpAt[i] = EventLoop.now()
                _ = c.request("\"op\":\"call.hangup\",\"call_id\":\"\(callId)\"")
            }
        case ("call.ended", true):
            let reason = object["reason"] as? String
            if phase[i] == .declined, reason == "declined" {
                _ = declineToCallerTold.record(now - declinedAt[i])
                declined += 1
                phase[i] = .done
            } else if phase[i] == .accepted, reason == "hangup" {
                _ = hangupToCallerTold.record(now - hungUpAt[i])
                completed += 1
                phase[i] = .done
            } else {
                error("pair \(i): call ended with \(reason ?? "?") in phase \(phase[i])")
                phase[i] = .done
            }
        default:
            break
        }
    }

    var finished: Int { phase.count { $0 == .done } }

    func closeAll() {
        loop.assertOnLoop()
        closing = true
        timer?.cancel()
        timer = nil
        for c in clients { c.close() }
    }
}

struct Calls: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Concurrent call set-ups between the pairs of setup --pairs: invite, ring, decline or accept + signals + hang-up."
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
