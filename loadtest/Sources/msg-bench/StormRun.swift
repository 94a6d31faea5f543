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
