//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport
import Synchronization
import Testing

@testable import SwitchboardServer

/// A connection without a socket: what the protocol connection sends, closes and pauses is recorded. Every member
/// is called on `loop` (as the HTTP session's are); tests read the record through `Harness.onLoop`.
final class TestConnectionPort: ConnectionPort, @unchecked Sendable {
    // @unchecked Sendable: the mutable fields are confined to `loop`'s queue (asserted on every write).
    let loop: EventLoop
    let connectionNumber: UInt64 = 1
    let clientAddress = "127.0.0.1"
    // protected by loop's queue
    var outboundBytes = 0
    // protected by loop's queue
    var isOpen = true
    // protected by loop's queue: every text message sent, in order (replies, events, shared messages' payloads)
    private(set) var sent: [[UInt8]] = []
    // protected by loop's queue: the close codes sent
    private(set) var closeCodes: [UInt16] = []
    // protected by loop's queue: whether admission control paused reading
    private(set) var readingPaused = false
    // protected by loop's queue: how often reading was paused
    private(set) var pauses = 0

    init(loop: EventLoop) { self.loop = loop }

    func sendText(_ bytes: [UInt8]) {
        loop.assertOnLoop()
        if isOpen { sent.append(bytes) }
    }

    func sendEvent(_ bytes: [UInt8]) { sendText(bytes) }
    func sendShared(_ message: OutboundMessage) { sendText(message.payload) }
    func sendShared(_ messages: [OutboundMessage], keeping keep: (OutboundMessage) -> Bool) {
        loop.assertOnLoop()
        guard isOpen else { return }
        for message in messages where keep(message) { sendText(message.payload) }
    }
    func sendShared(_ message: OutboundMessage, keeping keep: (OutboundMessage) -> Bool) {
        loop.assertOnLoop()
        guard isOpen, keep(message) else { return }
        sendText(message.payload)
    }
    func sendFanout(_ frame: SharedBytes) {}

    func closeWebSocket(code: UInt16, reason: String) {
        loop.assertOnLoop()
        closeCodes.append(code)
    }

    func pauseReading() {
        loop.assertOnLoop()
        readingPaused = true
        pauses += 1
    }

    func resumeReading() {
        loop.assertOnLoop()
        readingPaused = false
    }

    func flush() {}

    /// The sent messages as JSON objects.
    var messages: [[String: Any]] {
        sent.compactMap { (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any] }
    }
}

/// The real router, ordered lane and admission control of one protocol connection, driven through a
/// `TestConnectionPort` on a loop of a server that never listens, with the test database (a pool of its own, which a
/// test may hold busy with `holdDatabase()`).
final class Harness: @unchecked Sendable {
    // @unchecked Sendable: `app` and `port` are used on the loop only (through `onLoop`); the rest is immutable.
    let server: HubServer
    let loop: EventLoop
    let port: TestConnectionPort
    let app: ProtocolApplication
    let pool: DatabasePool
    private let nextId = Mutex(0)

    /// A server on the test database whose pool has `poolSize` connections, and one connection to it.
    init(poolSize: Int = 1, _ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration()
        configuration.loopCount = 1
        configuration.passwordHashers = 1
        adjust(&configuration)
        let url = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_DATABASE_URL"] ?? ""
        _ = try EngineTestDatabase.shared.pool  // the schema is migrated
        pool = try DatabasePool(connectionString: url, size: poolSize, logger: testLogger(), maxWaiters: 1024)
        server = try HubServer(configuration: configuration, logger: testLogger(), database: pool)
        loop = server.group.loops[0]
        port = TestConnectionPort(loop: loop)
        guard let application = server.application else { throw EngineTestError.noRow }
        app = ProtocolApplication(port: port, application: application)
    }

    /// Runs `body` on the connection's loop and returns its result.
    func onLoop<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
    }

    /// Makes the connection a device of a new user (as a successful `authenticate` does); returns the user.
    func authenticate() async throws -> Identity {
        let userId = try await EngineTestDatabase.shared.user("harness")
        let sessionId = try await EngineTestDatabase.shared.pool.withConnection { db in
            try db.execute(
                cached: """
                    INSERT INTO sessions (user_id, token_hash, device)
                    VALUES ($1, decode(md5(random()::text), 'hex'), 'test')
                    RETURNING id
                    """, [.int(userId)]
            ).decodeFirst(Int64.self) ?? 0
        }
        let identity = Identity(userId: userId, sessionId: sessionId)
        await withApp { $0.authenticated(identity) }
        return identity
    }

    /// Sends a request as a text frame; returns its id.
    @discardableResult
    func send(_ op: String, _ parameters: [String: any Sendable] = [:]) async -> Int {
        let id = nextId.withLock { n -> Int in
            n += 1
            return n
        }
        var object = parameters as [String: Any]
        object["id"] = id
        object["op"] = op
        let bytes = Array((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
        await receive(bytes)
        return id
    }

    /// Hands the connection a text frame as the session would.
    func receive(_ bytes: [UInt8]) async {
        await withApp { $0.receiveText(bytes) }
    }

    /// Runs `body` with the protocol connection on its loop.
    func withApp<T: Sendable>(_ body: @escaping @Sendable (ProtocolApplication) -> T) async -> T {
        await onLoop { body(self.app) }
    }

    /// Everything sent so far, as JSON objects.
    func messages() async -> [[String: Any]] {
        let port = self.port
        return await onLoop { UncheckedMessages(port.messages) }.value
    }

    /// The replies so far (`re` set), in the order they were sent.
    func replies() async -> [[String: Any]] { await messages().filter { $0["re"] != nil } }

    /// Waits (bounded) until `count` replies have been sent; returns them.
    func replies(count: Int, timeout: Double = 10) async -> [[String: Any]] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let r = await replies()
            if r.count >= count || Date() > deadline { return r }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits (bounded) for the reply to `id`.
    func reply(to id: Int, timeout: Double = 10) async -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let reply = await replies().last(where: { $0["re"] as? Int == id }) { return reply }
            if Date() > deadline { return [:] }
            try? await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Reads a value of the port on its loop.
    func port<T: Sendable>(_ read: @escaping @Sendable (TestConnectionPort) -> T) async -> T {
        let port = self.port
        return await onLoop { read(port) }
    }

    /// Holds every connection of the harness's pool until the returned release is called: requests that need the
    /// database wait in the pool's queue meanwhile.
    func holdDatabase() async -> @Sendable () -> Void {
        let gate = DispatchSemaphore(value: 0)
        let held = DispatchGroup()
        for _ in 0..<pool.size {
            held.enter()
            pool.withConnection(
                on: DispatchQueue(label: "harness.hold"),
                { _ in
                    held.leave()
                    gate.wait()
                }, completion: { _ in })
        }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            held.notify(queue: .global()) { c.resume() }
        }
        let size = pool.size
        return { for _ in 0..<size { gate.signal() } }
    }

    /// Stops the server's loops and closes the pool.
    func close() {
        server.group.shutdown()
        pool.close()
    }
}

/// JSON objects carried across the loop hop (`JSONSerialization` results are not `Sendable`).
struct UncheckedMessages: @unchecked Sendable {
    let value: [[String: Any]]
    init(_ value: [[String: Any]]) { self.value = value }
}

/// The `code` of an error reply.
func errorCode(_ message: [String: Any]) -> String? {
    (message["error"] as? [String: Any])?["code"] as? String
}
