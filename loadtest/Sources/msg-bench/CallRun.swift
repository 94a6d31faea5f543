//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
                """
                \"op\":\"call.invite\",\"callee_id\":\(file.users[pairs[i].b].id),\
                \"call_id\":\"bench-\(i)\",\"offer\":\"v=0 bench\"
                """
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
                    """
                    \"op\":\"call.signal\",\"call_id\":\"\(callId)\",\"kind\":\"ice_candidate\",\
                    \"payload\":\"{\\\"candidate\\\":\\\"candidate:\(k) 1 udp 2122260223 127.0.0.1 5000\(k) typ \
                    host\\\",\\\"sdpMid\\\":\\\"0\\\",\\\"sdpMLineIndex\\\":0}\"
                    """
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
