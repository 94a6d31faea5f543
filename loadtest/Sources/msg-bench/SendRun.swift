//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// The engine of `fanout` and `direct`: online users (authenticated with their tokens), senders that keep
// a window of unacknowledged `messages.send` (optionally paced to a total rate), receivers that time each
// delivery against the send time carried in the client id (one process, one monotonic clock).
import Dispatch
import Foundation
import SwitchboardTransport

final class SendRun: @unchecked Sendable {
    // @unchecked Sendable: every mutable field is confined to `loop.queue`; the main thread reads them
    // through `loop.queue.sync`.
    let loop: EventLoop
    /// The server addresses; client i connects to the (i mod n)-th.
    let hosts: [String]
    let port: Int
    let users: [BenchUser]
    let senders: [SenderSpec]
    /// Deliveries each acknowledged message must produce (online members other than the sending connection).
    let recipientsPerMessage: Int
    let window: Int
    /// Messages per second over all senders; 0: as fast as the windows allow.
    let rate: Double
    let textBody: String

    var clients: [LoopClient] = []
    var senderOf: [Int: Int] = [:]  // client index -> sender index
    var authIds: [Int] = []
    var authenticated = 0
    var authLatency = makeHistogram()
    var connectStarted: [UInt64] = []
    var errors = 0
    var firstErrors: [String] = []
    var closed = 0
    var closeReasons: [String: Int] = [:]

    var sending = false
    var measuring = false
    var inFlight: [Int]
    var sentAt: [[Int: UInt64]]
    var sequence = 0
    var sendStart: UInt64 = 0
    var sent = 0
    var acked = 0
    var deliveries = 0
    var windowAcked = 0
    var windowDeliveries = 0
    var windowSent = 0
    var deliveryLatency = makeHistogram()
    var ackLatency = makeHistogram()
    var nextSender = 0
    var timer: (any DispatchSourceTimer)?

    init(
        loop: EventLoop, hosts: [String], port: Int, users: [BenchUser], senders: [SenderSpec],
        recipientsPerMessage: Int,
        window: Int, rate: Double, textSize: Int
    ) {
        self.loop = loop
        self.hosts = hosts
        self.port = port
        self.users = users
        self.senders = senders
        self.recipientsPerMessage = recipientsPerMessage
        self.window = window
        self.rate = rate
        textBody = String(repeating: "m", count: max(1, textSize))
        inFlight = Array(repeating: 0, count: senders.count)
        sentAt = Array(repeating: [:], count: senders.count)
    }

    func error(_ text: String) {
        errors += 1
        if firstErrors.count < 10 { firstErrors.append(text) }
    }

    // MARK: connecting

    /// Call on the loop: opens one connection per user and authenticates it.
    func connectAll() {
        loop.assertOnLoop()
        for (s, spec) in senders.enumerated() { senderOf[spec.client] = s }
        authIds = Array(repeating: -1, count: users.count)
        connectStarted = Array(repeating: 0, count: users.count)
        for i in 0..<users.count {
            let host = hosts[i % hosts.count]
            let client = LoopClient(index: i, hostHeader: "\(host):\(port)")
            client.onOpen = { [unowned self] c in
                authIds[c.index] = c.request("\"op\":\"authenticate\",\"token\":\"\(users[c.index].token)\"")
            }
            client.onText = { [unowned self] c, bytes in received(c, bytes) }
            client.onClose = { [unowned self] c, reason in
                closed += 1
                closeReasons[reason, default: 0] += 1
                if sending || !measuringDone { error("connection \(c.index) closed: \(reason)") }
            }
            clients.append(client)
            connectStarted[i] = EventLoop.now()
            loop.open(client, host: host, port: port)
        }
    }

    var measuringDone = false

    // MARK: receiving

    private func received(_ c: LoopClient, _ bytes: [UInt8]) {
        if let t = Wire.sentAt(bytes) {
            deliveries += 1
            if measuring {
                windowDeliveries += 1
                let now = EventLoop.now()
                _ = deliveryLatency.record(now > t ? now - t : 0)
            }
            return
        }
        switch Wire.classify(bytes) {
        case .event: return
        case .reply(let id):
            if id == authIds[c.index] {
                authIds[c.index] = -1
                authenticated += 1
                _ = authLatency.record(EventLoop.now() - connectStarted[c.index])
                return
            }
            guard let s = senderOf[c.index], let t = sentAt[s].removeValue(forKey: id) else { return }
            inFlight[s] -= 1
            acked += 1
            if measuring {
                windowAcked += 1
                _ = ackLatency.record(EventLoop.now() - t)
            }
            if sending && rate == 0 { pump(s) }
        case .error(let id):
            if let id, let s = senderOf[c.index], sentAt[s].removeValue(forKey: id) != nil { inFlight[s] -= 1 }
            error(
                """
                client \(c.index): \(Wire.field(bytes, "code") ?? "?") \
                \(Wire.field(bytes, "message") ?? String(decoding: bytes.prefix(200), as: UTF8.self))
                """
            )
        }
    }

    // MARK: sending

    private func send(_ s: Int) {
        let spec = senders[s]
        let client = clients[spec.client]
        sequence += 1
        let now = EventLoop.now()
        let id = client.request(
            """
            \"op\":\"messages.send\",\"conversation_id\":\(spec.conversationId),\
            \"client_id\":\"\(now).\(s).\(sequence)\",\"text\":\"\(textBody)\"
            """
        )
        sentAt[s][id] = now
        inFlight[s] += 1
        sent += 1
        if measuring { windowSent += 1 }
    }

    /// Window mode: fills sender `s`'s window.
    private func pump(_ s: Int) {
        while inFlight[s] < window && !clients[senders[s].client].isClosed { send(s) }
    }

    /// Rate mode: sends what is due by now, round robin over senders with room in their windows.
    private func tick() {
        guard sending else { return }
        let due = Int(rate * Double(EventLoop.now() - sendStart) / 1e9) - sent
        var budget = due
        var skipped = 0
        while budget > 0 && skipped < senders.count {
            let s = nextSender
            nextSender = (nextSender + 1) % senders.count
            if inFlight[s] < window && !clients[senders[s].client].isClosed {
                send(s)
                budget -= 1
                skipped = 0
            } else {
                skipped += 1
            }
        }
    }

    /// Call on the loop.
    func startSending() {
        loop.assertOnLoop()
        sending = true
        sendStart = EventLoop.now()
        if rate > 0 {
            let t = DispatchSource.makeTimerSource(queue: loop.queue)
            t.setEventHandler { [unowned self] in tick() }
            t.schedule(deadline: .now(), repeating: .microseconds(500), leeway: .microseconds(100))
            t.resume()
            timer = t
        } else {
            for s in senders.indices { pump(s) }
        }
    }

    func stopSending() {
        loop.assertOnLoop()
        sending = false
        timer?.cancel()
        timer = nil
    }

    var outstanding: Int { inFlight.reduce(0, +) }

    func closeAll() {
        loop.assertOnLoop()
        measuringDone = true
        for c in clients { c.close() }
    }
}
