//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Synchronization
import Testing

@testable import SwitchboardServer
@testable import SwitchboardTransport

/// Two loops without sockets, started once for the process (a loop's sources must not be released while
/// suspended).
enum TestLoops {
    static let loops: [EventLoop] = (0..<2).map { index in
        let loop = try! EventLoop(
            index: index, readBufferSize: 4096, sweepInterval: 1_000_000_000, logger: Logger(label: "test-loop"))
        loop.start()
        return loop
    }
}

/// Records what the local outbox hands it, and on which loop.
final class RecordingEndpoint: OutboxEndpoint, Sendable {
    let loop: EventLoop
    private let log = Mutex<[String]>([])
    init(loop: EventLoop) { self.loop = loop }

    func receive(_ item: OutboxItem) {
        loop.assertOnLoop()
        let entry: String
        switch item {
        case .reply: entry = "reply"
        case .message(let m): entry = "message \(m.seq)"
        case .messages(let list): entry = list.map { "message \($0.seq)" }.joined(separator: ", ")
        case .ephemeral(_, let source): entry = "ephemeral \(source)"
        case .event(let bytes): entry = "event \(String(decoding: bytes, as: UTF8.self))"
        case .revoke: entry = "revoke"
        case .reconnect: entry = "reconnect"
        case .suspend: entry = "suspend"
        case .close(let code, _): entry = "close \(code)"
        case .social(let d): entry = "social \(String(decoding: d.bytes, as: UTF8.self))"
        }
        log.withLock { $0.append(entry) }
    }

    var received: [String] { log.withLock { $0 } }
}

@Suite struct LocalOutboxTests {
    static func attach(_ outbox: LocalOutbox, _ endpoint: RecordingEndpoint) async -> ConnectionID {
        let id = ConnectionID.next()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            endpoint.loop.execute {
                outbox.attach(id, endpoint, loop: endpoint.loop)
                c.resume()
            }
        }
        return id
    }

    static func message(seq: Int64) -> OutboundMessage {
        OutboundMessage(
            ChatMessage(
                id: seq, conversationId: 1, seq: seq, senderId: 1, kind: .text, text: "m",
                ts: "2026-01-01T00:00:00.000Z"))
    }

    @Test func eachConnectionGetsItsItemsOnItsLoopRepliesFirst() async {
        let outbox = LocalOutbox()
        let one = RecordingEndpoint(loop: TestLoops.loops[0])
        let two = RecordingEndpoint(loop: TestLoops.loops[1])
        let c1 = await Self.attach(outbox, one)
        let c2 = await Self.attach(outbox, two)
        var batch = OutboxBatch()
        batch.add(.message(Self.message(seq: 7)), to: [c1, c2])
        batch.reply(.empty(.int(1), op: "typing", nil), to: c1)
        batch.add(.ephemeral(Array("{}".utf8), source: "t:1"), to: c1)
        batch.add(.event(Array("e".utf8)), to: c2)
        outbox.post(batch)
        let fake = FakeOutbox()
        #expect(await fake.wait { one.received.count == 3 && two.received.count == 2 })
        #expect(one.received == ["reply", "message 7", "ephemeral t:1"])
        #expect(two.received == ["message 7", "event e"])
    }

    @Test func aDetachedOrVanishedConnectionGetsNothing() async {
        let outbox = LocalOutbox()
        let one = RecordingEndpoint(loop: TestLoops.loops[0])
        let c1 = await Self.attach(outbox, one)
        var gone: RecordingEndpoint? = RecordingEndpoint(loop: TestLoops.loops[1])
        let c2 = await Self.attach(outbox, gone!)
        #expect(outbox.count == 2)
        outbox.detach(c1)
        gone = nil
        outbox.post(.revoke, to: [c1, c2])
        // Something after it, to a live connection on each loop, shows the revokes were dropped, not late.
        let three = RecordingEndpoint(loop: TestLoops.loops[0])
        let c3 = await Self.attach(outbox, three)
        let four = RecordingEndpoint(loop: TestLoops.loops[1])
        let c4 = await Self.attach(outbox, four)
        outbox.post(.revoke, to: [c3, c4])
        #expect(await FakeOutbox().wait { three.received == ["revoke"] && four.received == ["revoke"] })
        #expect(one.received.isEmpty)
        #expect(outbox.count == 3)
    }
}
