//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardProtocol
import SwitchboardServer
import SwitchboardTransport
import Testing

#if canImport(Glibc)
import Glibc
#endif

// MARK: - Helpers

/// A TCP relay on 127.0.0.1 between clients and a server that the test can cut (every connection is shut
/// down, as a network failure would) or pause (bytes are held, as a stalled network would). Its threads are
/// its own: blocking reads on Dispatch's global queue starve it on two cores.
final class DropProxy: @unchecked Sendable {
    // @unchecked Sendable: `pairs`, `paused` and `stopped` are protected by `lock`; the rest is immutable.
    let port: Int
    private let targetPort: Int
    private let listenFD: Int32
    private let lock = NSLock()
    // protected by lock
    private var pairs: [ObjectIdentifier: Pair] = [:]
    // protected by lock
    private var paused = false
    // protected by lock: hold only the bytes from the server to the client
    private var holdingReplies = false
    // protected by lock
    private var stopped = false
    // protected by lock
    private(set) var accepted = 0
    // protected by lock: bytes read from the clients (relayed or held)
    private var fromClients = 0

    /// Two sockets relayed both ways; closed by the last of its two pump threads.
    final class Pair: @unchecked Sendable {
        // @unchecked Sendable: `live` is protected by `lock`.
        let client: Int32
        let server: Int32
        private let lock = NSLock()
        private var live = 2
        init(client: Int32, server: Int32) {
            self.client = client
            self.server = server
        }

        func shutdownBoth() {
            _ = Glibc.shutdown(client, Int32(SHUT_RDWR))
            _ = Glibc.shutdown(server, Int32(SHUT_RDWR))
        }

        /// A pump ended; returns true for the last one.
        func pumpEnded() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            live -= 1
            return live == 0
        }
    }

    init(targetPort: Int) throws {
        self.targetPort = targetPort
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSocketError.connect(errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0, listen(fd, 64) == 0 else {
            Glibc.close(fd)
            throw TestSocketError.connect(errno)
        }
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listenFD = fd
        port = Int(UInt16(bigEndian: bound.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                break
            }
            guard let server = try? TestSocket.connectFD(port: targetPort) else {
                Glibc.close(client)
                continue
            }
            let pair = Pair(client: client, server: server)
            lock.lock()
            if stopped {
                lock.unlock()
                Glibc.close(client)
                Glibc.close(server)
                break
            }
            pairs[ObjectIdentifier(pair)] = pair
            accepted += 1
            lock.unlock()
            Thread.detachNewThread { [self] in pump(pair, from: pair.client, to: pair.server) }
            Thread.detachNewThread { [self] in pump(pair, from: pair.server, to: pair.client) }
        }
        Glibc.close(listenFD)
    }

    private func pump(_ pair: Pair, from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        relay: while true {
            let n = buffer.withUnsafeMutableBytes { recv(from, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            if from == pair.client {
                lock.lock()
                fromClients += n
                lock.unlock()
            }
            // Held while paused (bounded by the test's own timeouts; a cut ends it).
            var waited = 0
            while isHeld(from: from == pair.server) && waited < 3000 {
                usleep(10_000)
                waited += 1
            }
            var offset = 0
            while offset < n {
                let m = buffer[offset..<n].withUnsafeBytes {
                    Glibc.send(to, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard m > 0 else { break relay }
                offset += m
            }
        }
        pair.shutdownBoth()
        if pair.pumpEnded() {
            Glibc.close(pair.client)
            Glibc.close(pair.server)
            lock.lock()
            pairs[ObjectIdentifier(pair)] = nil
            lock.unlock()
        }
    }

    private func isHeld(from server: Bool) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return paused || (server && holdingReplies)
    }

    /// Holds (true) or releases (false) what the server sends; what clients send still goes through.
    func setHoldingReplies(_ value: Bool) {
        lock.lock()
        holdingReplies = value
        lock.unlock()
    }

    /// Holds (true) or releases (false) the bytes in both directions.
    func setPaused(_ value: Bool) {
        lock.lock()
        paused = value
        lock.unlock()
    }

    /// Cuts every relayed connection (both sides see the TCP connection end without a close frame).
    func dropAll() {
        lock.lock()
        let all = Array(pairs.values)
        lock.unlock()
        for pair in all { pair.shutdownBoth() }
    }

    /// Bytes the proxy has read from its clients so far (also while paused: a request sent, even if held).
    var bytesFromClients: Int {
        lock.lock()
        defer { lock.unlock() }
        return fromClients
    }

    /// Connections relayed so far.
    var acceptedCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    /// Stops accepting and cuts every connection.
    func stop() {
        lock.lock()
        stopped = true
        paused = false
        holdingReplies = false
        lock.unlock()
        _ = Glibc.shutdown(listenFD, Int32(SHUT_RDWR))
        dropAll()
    }
}

extension TestSocket {
    /// A connected blocking socket to 127.0.0.1:port (the caller owns the fd).
    static func connectFD(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSocketError.connect(errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let e = errno
            Glibc.close(fd)
            throw TestSocketError.connect(e)
        }
        return fd
    }
}

/// Everything a client reported on `events`, for assertions.
final class EventLog: @unchecked Sendable {
    // @unchecked Sendable: `items` is protected by `lock`.
    private let lock = NSLock()
    // protected by lock
    private var items: [ClientEvent] = []

    init(_ client: SwitchboardClient) {
        Task { [self] in
            for await event in client.events { append(event) }
        }
    }

    private func append(_ event: ClientEvent) {
        lock.lock()
        items.append(event)
        lock.unlock()
    }

    var all: [ClientEvent] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }

    var messages: [Message] {
        all.compactMap { if case .message(let m) = $0 { return m } else { return nil } }
    }

    var states: [ConnectionState] {
        all.compactMap { if case .state(let s) = $0 { return s } else { return nil } }
    }

    var accountEvents: [ServerEvent] {
        all.compactMap { if case .account(let e) = $0 { return e } else { return nil } }
    }

    /// Waits (polling, bounded) until `condition` holds for the events so far.
    @discardableResult
    func wait(_ seconds: Double = 10, until condition: ([ClientEvent]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(all) { return true }
            try? await Task.sleep(nanoseconds: 10_000_000)
        }
        return condition(all)
    }

    /// Counts the states equal to `state`.
    func count(_ state: ConnectionState) -> Int { states.filter { $0 == state }.count }
}

/// Waits (polling, bounded) until `condition` holds; returns whether it did.
func eventually(_ seconds: Double = 10, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while await !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
}

/// How many `op` requests the server on `port` has answered (`switchboard_request_duration_seconds_count` on
/// `/metrics`).
func answered(_ port: Int, op: String) throws -> Int {
    let socket = try TestSocket(port: port)
    try socket.send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    let metrics = String(decoding: try socket.readResponse().body, as: UTF8.self)
    for line in metrics.split(separator: "\n")
    where line.hasPrefix("switchboard_request_duration_seconds_count{") && line.contains("op=\"\(op)\"") {
        return Int(Double(line.split(separator: " ").last ?? "") ?? 0)
    }
    return 0
}

/// A client of `port` with quick reconnects (the test's proxy or server port).
func makeClient(
    port: Int, secure: Bool = false, _ adjust: (inout ClientConfiguration) -> Void = { _ in }
) throws -> SwitchboardClient {
    var configuration = ClientConfiguration(endpoint: ServerEndpoint(host: "127.0.0.1", port: port, secure: secure))
    configuration.requestTimeout = 10
    configuration.connectTimeout = 5
    configuration.reconnect.initialDelay = 0.05
    configuration.reconnect.maximumDelay = 0.5
    adjust(&configuration)
    return try SwitchboardClient(configuration: configuration)
}

/// A registered account on `client`.
struct ClientUser {
    let credentials: SessionCredentials
    let phone: String
    let password: String
    var id: Int64 { credentials.userId }
}

func registerUser(_ client: SwitchboardClient, _ name: String) async throws -> ClientUser {
    let phone = freshPhone()
    let password = "\(name) secret pass 42"
    let credentials = try await client.register(
        phone: phone, password: password, displayName: name, device: "\(name)-1")
    return ClientUser(credentials: credentials, phone: phone, password: password)
}

/// Makes `a` and `b` friends through their clients.
func befriend(_ a: SwitchboardClient, _ b: SwitchboardClient, _ bUser: ClientUser) async throws {
    let result = try await a.requestFriend(userId: bUser.id)
    let request = try #require(result.request)
    try await b.acceptFriendRequest(request.requestId)
}

// MARK: - Pure parts

@Suite("Client library: resume tracker, backoff, endpoints")
struct ClientLibraryUnitTests {
    @Test func trackerGivesEachMessageOnceAndResumesAfterTheFloor() {
        var t = ResumeTracker()
        var r = false
        r = t.observe(conversationId: 1, seq: 5)
        #expect(r)
        r = t.observe(conversationId: 1, seq: 6)
        #expect(r)
        r = t.observe(conversationId: 1, seq: 6)
        #expect(!r)
        r = t.observe(conversationId: 1, seq: 4)
        #expect(!r)
        #expect(t.resumePoints == [1: 6])
        // A catch-up after a reconnect repeats 6 and brings 7: 6 is dropped.
        r = t.observe(conversationId: 1, seq: 6)
        #expect(!r)
        r = t.observe(conversationId: 1, seq: 7)
        #expect(r)
        #expect(t.duplicatesDropped == 3)
        #expect(t.resumePoints == [1: 7])
    }

    @Test func trackerKeepsAnEarlierEventThatArrivesAfterOurOwnAcknowledgement() {
        var t = ResumeTracker()
        var r = false
        r = t.observe(conversationId: 9, seq: 1)
        #expect(r)
        // Our message got seq 3 and its ack came first; someone else's seq 2 is still on its way.
        t.acknowledge(conversationId: 9, seq: 3)
        #expect(t.resumePoints == [9: 1])
        r = t.observe(conversationId: 9, seq: 2)
        #expect(r)
        #expect(t.resumePoints == [9: 3])
        // A catch-up does not give our own message back.
        r = t.observe(conversationId: 9, seq: 3)
        #expect(!r)
        #expect(t.pendingCount == 0)
    }

    @Test func trackerAdvancesToASyncReplyAndStartsFromSavedPoints() {
        var t = ResumeTracker(resumePoints: [3: 10])
        var r = false
        r = t.observe(conversationId: 3, seq: 10)
        #expect(!r)
        r = t.observe(conversationId: 3, seq: 11)
        #expect(r)
        t.advance(conversationId: 3, to: 20)
        t.advance(conversationId: 4, to: 2)
        #expect(t.resumePoints == [3: 20, 4: 2])
        r = t.observe(conversationId: 3, seq: 15)
        #expect(!r)
        // Only our own message is known in a conversation: without a baseline it is left out (from the
        // joining), with one it resumes from the baseline, since earlier messages may be on their way.
        t.acknowledge(conversationId: 5, seq: 8)
        #expect(t.resumePoints[5] == nil)
        t.setBaseline(conversationId: 5, lastSeq: 6)
        #expect(t.resumePoints[5] == 6)
        // The baseline does not make an event below it a duplicate (it was on its way when the list was read).
        t.setBaseline(conversationId: 6, lastSeq: 10)
        #expect(t.resumePoints[6] == 10)
        r = t.observe(conversationId: 6, seq: 9)
        #expect(r)
        #expect(t.resumePoints[6] == 9)
        r = t.observe(conversationId: 5, seq: 7)
        #expect(r)
        #expect(t.resumePoints[5] == 8)
        t.reset()
        #expect(t.resumePoints.isEmpty)
    }

    @Test func backoffGrowsExponentiallyUpToTheCeilingWithJitter() {
        var policy = ReconnectPolicy()
        policy.initialDelay = 0.1
        policy.maximumDelay = 1
        policy.multiplier = 2
        policy.jitter = 0.5
        policy.maximumAttempts = 6
        var b = ReconnectBackoff(policy: policy)
        let high = (1...6).map { _ in b.next(random: 0.999_999) }
        let last = b.next(random: 0)
        #expect(last == .giveUp)
        let delays = high.compactMap { if case .retry(let d, _) = $0 { return d } else { return nil } }
        #expect(delays.count == 6)
        for (d, e) in zip(delays, [0.1, 0.2, 0.4, 0.8, 1, 1]) { #expect(abs(d - e) < 1e-5) }
        b.reset()
        // The smallest random draw gives half the delay (jitter 0.5).
        let first = b.next(random: 0)
        #expect(first == .retry(after: 0.05, attempt: 1))
        #expect(ReconnectBackoff(policy: .disabled).attempts == 0)
        var off = ReconnectBackoff(policy: .disabled)
        let decision = off.next(random: 0.5)
        #expect(decision == .giveUp)
    }

    @Test func endpointsParse() {
        #expect(ServerEndpoint(url: "ws://127.0.0.1:8080") == ServerEndpoint(host: "127.0.0.1", port: 8080))
        #expect(
            ServerEndpoint(url: "wss://chat.example/ws2")
                == ServerEndpoint(host: "chat.example", port: 443, path: "/ws2", secure: true))
        #expect(ServerEndpoint(url: "ws://[::1]:9000/ws") == ServerEndpoint(host: "::1", port: 9000))
        #expect(ServerEndpoint(url: "http://x") == nil)
        #expect(ServerEndpoint(url: "ws://:80") == nil)
        #expect(ServerEndpoint(url: "ws://h:99999") == nil)
        #expect(ServerEndpoint(host: "::1", port: 9000).description == "ws://[::1]:9000/ws")
    }
}

// MARK: - Over real sockets against a real server

@Suite("Client library against a real server", .serialized)
struct ClientLibraryTests {
    @Test func registerLoginTypedErrorsAndEvents() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let annEvents = EventLog(ann)
        let bobEvents = EventLog(bob)
        try await ann.connect()
        #expect(await ann.state == .connected)

        // Before authenticating: a typed error with the server's code.
        await #expect(
            throws: SwitchboardClientError.server(
                ServerError(code: "not_authenticated", message: "authenticate, log in or register first"))
        ) {
            _ = try await ann.friends()
        }
        // A weak password: the code and the reason.
        do {
            _ = try await ann.register(phone: freshPhone(), password: "123456", displayName: "Ann", device: "t")
            Issue.record("a weak password was accepted")
        } catch {
            #expect(error.serverCode == .weakPassword)
            if case .server(let e) = error { #expect(e.reason == "sequence") }
        }
        let annUser = try await registerUser(ann, "Ann")
        #expect(await ann.state == .authenticated(userId: annUser.id))
        #expect(await ann.sessionToken == annUser.credentials.sessionToken)

        // Bob connects on demand (no connect() call), fails a login, then registers.
        do {
            try await bob.login(phone: annUser.phone, password: "wrong password 1", device: "x")
            Issue.record("a wrong password logged in")
        } catch {
            #expect(error.serverCode == .invalidCredentials)
        }
        let bobUser = try await registerUser(bob, "Bob")
        // An op this server does not know, through the untyped request.
        await #expect(throws: SwitchboardClientError.self) { try await bob.request(op: "no.such.op") }
        do { try await bob.request(op: "no.such.op") } catch { #expect(error.serverCode == .unknownOp) }
        // A parameter of the wrong type, through the untyped request: bad_request naming the field.
        do {
            try await bob.request(op: "sessions.revoke", params: ["session_id": "6"] as JSONValue)
        } catch {
            guard case .server(let e) = error else { throw error }
            #expect(e.code == "bad_request" && e.message.contains("session_id"))
        }

        // Friends: events reach both.
        let sent = try await ann.requestFriend(phone: bobUser.phone)
        let request = try #require(sent.request)
        #expect(
            await bobEvents.wait { events in
                events.contains {
                    if case .account(.friendRequestReceived(let e)) = $0 {
                        return e.request.requestId == request.requestId
                    } else {
                        return false
                    }
                }
            })
        let friend = try await bob.acceptFriendRequest(request.requestId)
        #expect(friend.userId == annUser.id)
        #expect(
            await annEvents.wait { events in
                events.contains {
                    if case .account(.friendRequestAccepted(let e)) = $0 {
                        return e.accepter.userId == bobUser.id
                    } else {
                        return false
                    }
                }
            })
        #expect(try await ann.friends().map(\.userId) == [bobUser.id])
        #expect(try await bob.profile(userId: annUser.id).displayName == "Ann")
        try await ann.updateProfile(displayName: "Ann Lee")
        #expect(
            await bobEvents.wait { events in
                events.contains {
                    if case .account(.profileUpdated(let e)) = $0 {
                        return e.profile.displayName == "Ann Lee"
                    } else {
                        return false
                    }
                }
            })
        // Presence: Bob sees Ann go away.
        try await ann.setPresence(.away)
        #expect(
            await bobEvents.wait { events in
                events.contains {
                    if case .presence(let p) = $0 {
                        return p.userId == annUser.id && p.status == "away"
                    } else {
                        return false
                    }
                }
            })
        // Login on a second client: typed credentials, and a session list of two.
        let ann2 = try makeClient(port: port)
        let login = try await ann2.login(phone: annUser.phone, password: annUser.password, device: "Ann-2")
        #expect(login.userId == annUser.id)
        #expect(try await ann2.sessions().count == 2)
        let ann2Events = EventLog(ann2)
        try await ann2.setPresence(.online)
        try await ann2.ping()
        _ = ann2Events
        await ann.close()
        await bob.close()
        await ann2.close()
        #expect(await ann.state == .closed(.closedByUser))
        await #expect(throws: SwitchboardClientError.closed(.closedByUser)) { try await ann.ping() }
    }

    @Test func requestTimeoutsAndConnectFailures() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let proxy = try DropProxy(targetPort: port)
        defer { proxy.stop() }
        let client = try makeClient(port: proxy.port)
        _ = try await registerUser(client, "Tim")
        // The network stalls: the request times out with its op named, and the client stays usable.
        proxy.setPaused(true)
        let started = Date()
        await #expect(throws: SwitchboardClientError.timeout(op: "ping")) { try await client.ping(timeout: 0.3) }
        #expect(Date().timeIntervalSince(started) < 2)
        // A cancelled task's request fails at once with .cancelled (cancelled once it is on the wire, held by the
        // paused proxy).
        let sentBefore = proxy.bytesFromClients
        let waiting = Task { try await client.ping(timeout: 20) }
        #expect(await eventually { proxy.bytesFromClients > sentBefore })
        waiting.cancel()
        if case .failure(let error) = await waiting.result {
            #expect(error as? SwitchboardClientError == .cancelled)
        } else {
            Issue.record("a cancelled ping succeeded")
        }
        proxy.setPaused(false)
        try await client.ping()
        // A late reply to the timed-out request is ignored; the next requests match their own replies.
        async let a = client.friends()
        async let b = client.sessions()
        let (friends, sessions) = try await (a, b)
        #expect(friends.isEmpty && sessions.count == 1)
        await client.close()

        // Nothing listens: connect() fails with a clear error.
        let deadPort = try DropProxy(targetPort: 1)
        let dead = deadPort.port
        deadPort.stop()
        // Until nothing listens there (the listener is shut down, then closed by the proxy's thread).
        #expect(
            await eventually {
                guard let fd = try? TestSocket.connectFD(port: dead) else { return true }
                Glibc.close(fd)
                return false
            })
        let nobody = try makeClient(port: dead) { $0.reconnect = .disabled }
        do {
            try await nobody.connect()
            Issue.record("connected to a closed port")
        } catch {
            guard case .connectFailed = error else { throw error }
        }
        // A request on a client that cannot connect fails within its timeout (here: reconnect disabled).
        do {
            try await nobody.ping(timeout: 2)
            Issue.record("a ping without a server succeeded")
        } catch {
            switch error {
            case .connectFailed, .timeout: break
            default: Issue.record("unexpected \(error)")
            }
        }
        await nobody.close()
    }

    @Test func reconnectsAfterTheConnectionDropsAndReauthenticates() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let proxy = try DropProxy(targetPort: port)
        defer { proxy.stop() }
        let client = try makeClient(port: proxy.port)
        let events = EventLog(client)
        let user = try await registerUser(client, "Rita")
        for round in 1...3 {
            proxy.dropAll()
            #expect(
                await events.wait { _ in events.count(.authenticated(userId: user.id)) == round + 1 }, "round \(round)")
            #expect(
                events.all.filter { if case .disconnected = $0 { return true } else { return false } }.count == round)
        }
        #expect(events.states.contains { if case .reconnecting = $0 { return true } else { return false } })
        #expect(events.states.contains(.authenticating))
        // Same session (re-authenticated with the token, not a new login), and the connection works.
        let sessions = try await client.sessions()
        #expect(sessions.count == 1 && sessions[0].sessionId == user.credentials.sessionId)
        #expect(proxy.acceptedCount == 4)

        // A request made while the connection is down waits for the re-authentication and succeeds.
        proxy.dropAll()
        let profile = try await client.profile()
        #expect(profile.userId == user.id)
        await client.close()
    }

    /// Two "nodes" (relays to one server, as nodes share one database) and a client that holds both: when its
    /// node dies it reconnects to the other in turn, re-authenticates and resumes with every message once; with
    /// one node dead, a drop on the other tries the dead one next, then comes back.
    @Test func failsOverToTheNextEndpointInTurnAndResumes() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let nodeA = try DropProxy(targetPort: port)
        var nodeAStopped = false
        defer { if !nodeAStopped { nodeA.stop() } }
        let nodeB = try DropProxy(targetPort: port)
        defer { nodeB.stop() }
        let bob = try makeClient(port: nodeA.port) {
            $0.alternateEndpoints = [ServerEndpoint(host: "127.0.0.1", port: nodeB.port)]
        }
        let ann = try makeClient(port: port)
        let events = EventLog(bob)
        let bobUser = try await registerUser(bob, "Bob")
        let annUser = try await registerUser(ann, "Ann")
        try await befriend(bob, ann, annUser)
        #expect(await bob.currentEndpoint.port == nodeA.port)
        #expect(nodeA.acceptedCount == 1 && nodeB.acceptedCount == 0)
        let first = try await ann.sendText("before", to: .user(bobUser.id))
        #expect(await events.wait { _ in events.messages.contains { $0.seq == first.seq } })

        nodeA.stop()  // node A dies
        nodeAStopped = true
        let during = try await ann.sendText("during", to: .user(bobUser.id))
        #expect(await events.wait { _ in events.count(.authenticated(userId: bobUser.id)) == 2 })
        #expect(await bob.currentEndpoint.port == nodeB.port)
        #expect(nodeB.acceptedCount == 1)
        let after = try await ann.sendText("after", to: .user(bobUser.id))
        #expect(await events.wait { _ in events.messages.contains { $0.seq == after.seq } })

        // A drop on B: the next attempt goes to A (refused), the one after to B again.
        nodeB.dropAll()
        #expect(await events.wait { _ in events.count(.authenticated(userId: bobUser.id)) == 3 })
        #expect(await bob.currentEndpoint.port == nodeB.port)
        #expect(nodeB.acceptedCount == 2)
        let last = try await ann.sendText("last", to: .user(bobUser.id))
        #expect(await events.wait { _ in events.messages.contains { $0.seq == last.seq } })
        let seqs = events.messages.filter { $0.conversationId == first.conversationId && $0.seq >= first.seq }.map(
            \.seq)
        #expect(seqs == [first.seq, during.seq, after.seq, last.seq])
        // A single endpoint stays where it is.
        #expect(await ann.currentEndpoint.port == port)
        await bob.close()
        await ann.close()
    }

    @Test func aSilentConnectionIsGivenUpAndReplaced() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let proxy = try DropProxy(targetPort: port)
        defer { proxy.stop() }
        let client = try makeClient(port: proxy.port) {
            $0.pingInterval = 0.3
            $0.idleTimeout = 2.3
        }
        let events = EventLog(client)
        let user = try await registerUser(client, "Ida")
        // Idle but healthy: the client's pings keep it open.
        try await Task.sleep(nanoseconds: 4_000_000_000)
        #expect(events.count(.authenticated(userId: user.id)) == 1)
        // The network goes silent without closing: the client gives the connection up and, once the network
        // is back, reconnects and re-authenticates.
        proxy.setPaused(true)
        #expect(
            await events.wait(8) { all in
                all.contains { if case .disconnected = $0 { return true } else { return false } }
            })
        proxy.setPaused(false)
        #expect(await events.wait(10) { _ in events.count(.authenticated(userId: user.id)) == 2 })
        #expect(try await client.profile().userId == user.id)
        await client.close()
    }

    @Test func manyClientsShareOneEventLoop() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        var configuration = ClientConfiguration(endpoint: ServerEndpoint(host: "127.0.0.1", port: port))
        configuration.establishBaseline = false
        // Twenty Argon2id registrations at once: on two loaded cores (the hashers run niced) the last ones took over
        // the default 15 s twice in three runs while another build ran.
        configuration.requestTimeout = 60
        let clients = try (0..<20).map { _ in try SwitchboardClient(configuration: configuration, loop: group.loops[0])
        }
        try await withThrowingTaskGroup(of: Int64.self) { tasks in
            for (i, client) in clients.enumerated() {
                tasks.addTask {
                    let user = try await registerUser(client, "U\(i)")
                    try await client.ping()
                    return try await client.profile().userId == user.id ? 1 : 0
                }
            }
            var ok: Int64 = 0
            for try await r in tasks { ok += r }
            #expect(ok == 20)
        }
        for client in clients { await client.close() }
        // The shared loop outlives its clients.
        let late = try SwitchboardClient(configuration: configuration, loop: group.loops[0])
        try await late.connect()
        await late.close()
    }

    @Test func reconnectsAfterTheServerRestarts() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { database.close() }
        let client = try makeClient(port: port)
        let events = EventLog(client)
        let user = try await registerUser(client, "Sam")
        // The server closes its side (1001 on shutdown); the client retries with backoff while it is down.
        stop(server)
        #expect(
            await events.wait { all in
                all.contains {
                    if case .disconnected(let reason) = $0 { return reason.contains("1001") } else { return false }
                }
            })
        #expect(
            await events.wait { _ in
                events.states.filter {
                    if case .reconnecting(let attempt, _) = $0 { return attempt >= 3 } else { return false }
                }.count >= 1
            })
        // A request while the server is down waits for the connection, then times out.
        await #expect(throws: SwitchboardClientError.timeout(op: "ping")) { try await client.ping(timeout: 0.3) }
        let (restarted, _, database2) = try startProtocolServer { $0.port = port }
        defer { stop(restarted); database2.close() }
        #expect(await events.wait(15) { _ in events.count(.authenticated(userId: user.id)) == 2 })
        #expect(try await client.profile().userId == user.id)
        await client.close()
    }

    @Test func anUnauthenticatedConnectionClosedByTheServerIsReopenedOnDemand() async throws {
        let (server, port, database) = try startProtocolServer { $0.authenticationTimeout = 0.3 }
        defer { stop(server); database.close() }
        let client = try makeClient(port: port)
        let events = EventLog(client)
        try await client.connect()
        // No session: after the server's 4002 the client does not reconnect by itself...
        #expect(
            await events.wait { all in
                all.contains {
                    if case .disconnected(let reason) = $0 { return reason.contains("4002") } else { return false }
                }
            })
        #expect(await events.wait { _ in events.states.last == .disconnected })
        // A window, kept: a reconnect would be the client's own timer (the first after 0.05 s here), which no
        // request or reply can be ordered with; 0.3 s holds several.
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(events.states.last == .disconnected)
        // ...but the next request opens a connection.
        let user = try await registerUser(client, "Otto")
        #expect(await client.state == .authenticated(userId: user.id))
        await client.close()
    }

    @Test func aRevokedSessionStopsTheClient() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let first = try makeClient(port: port)
        let events = EventLog(first)
        let user = try await registerUser(first, "Vic")
        let second = try makeClient(port: port)
        try await second.login(phone: user.phone, password: user.password, device: "Vic-2")
        try await second.revokeSession(user.credentials.sessionId)
        #expect(await events.wait { _ in events.states.last == .closed(.sessionRevoked) })
        #expect(events.accountEvents.contains(.sessionRevoked(.init(sessionId: user.credentials.sessionId))))
        await #expect(throws: SwitchboardClientError.closed(.sessionRevoked)) { try await first.ping() }
        // A token that is no longer valid: authenticate answers invalid_token.
        let third = try makeClient(port: port)
        do {
            try await third.authenticate(token: user.credentials.sessionToken)
            Issue.record("a revoked token authenticated")
        } catch {
            #expect(error.serverCode == .invalidToken)
        }
        // Logout ends the client.
        let secondEvents = EventLog(second)
        try await second.logout()
        #expect(await secondEvents.wait { _ in secondEvents.states.last == .closed(.loggedOut) })
        await #expect(throws: SwitchboardClientError.closed(.loggedOut)) { try await second.ping() }
        await first.close()
        await second.close()
        await third.close()
    }

    @Test func secureWebSocketWithASelfSignedCertificate() async throws {
        let (dir, cert, key) = try selfSignedCertificate(prefix: "sb-client-tls")
        defer { try? FileManager.default.removeItem(at: dir) }
        let (server, port, database) = try startProtocolServer {
            $0.tlsCertificatePath = cert
            $0.tlsPrivateKeyPath = key
        }
        defer { stop(server); database.close() }
        // Trusting the certificate as its own CA.
        let client = try makeClient(port: port, secure: true) {
            $0.tls = try? TLSContext(clientWithCAFile: cert, verify: true)
        }
        let user = try await registerUser(client, "Tess")
        try await client.ping()
        #expect(try await client.profile().userId == user.id)
        await client.close()
        // Without trusting it, the handshake fails.
        let untrusting = try makeClient(port: port, secure: true) {
            $0.tls = try? TLSContext(clientWithCAFile: nil, verify: true)
            $0.reconnect = .disabled
        }
        await #expect(throws: SwitchboardClientError.self) { try await untrusting.connect() }
        await untrusting.close()
    }

    @Test func messagingMethodsAndEvents() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let cat = try makeClient(port: port)
        let bobEvents = EventLog(bob)
        let annUser = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        let catUser = try await registerUser(cat, "Cat")
        try await befriend(ann, bob, bobUser)
        try await befriend(ann, cat, catUser)

        let direct = try await ann.directConversation(with: bobUser.id)
        #expect(direct.kind == "direct")
        let ack = try await ann.sendText("hello Bob", to: .user(bobUser.id), clientId: "c-1")
        #expect(ack.conversationId == direct.conversationId)
        // The same client_id: the same acknowledgement, stored once.
        #expect(try await ann.sendText("hello Bob", to: .conversation(direct.conversationId), clientId: "c-1") == ack)
        #expect(await bobEvents.wait { _ in bobEvents.messages.contains { $0.text == "hello Bob" } })
        #expect(bobEvents.messages.filter { $0.text == "hello Bob" }.count == 1)
        try await ann.setTyping(direct.conversationId)
        #expect(
            await bobEvents.wait { all in
                all.contains {
                    if case .typing(let t) = $0 { return t.userId == annUser.id && t.active } else { return false }
                }
            })
        #expect(try await bob.markRead(direct.conversationId, seq: ack.seq) == ack.seq)
        do {
            try await bob.sendText("", to: .conversation(direct.conversationId))
            Issue.record("empty text accepted")
        } catch {
            #expect(error.serverCode == .invalidText)
        }

        let group = try await ann.createGroup(name: "Trio", memberIds: [bobUser.id, catUser.id])
        #expect(group.members.count == 3)
        try await ann.renameGroup(group.conversationId, name: "Three")
        for i in 0..<15 { try await cat.sendText("group \(i)", to: .conversation(group.conversationId)) }
        let page = try await bob.history(group.conversationId, limit: 10)
        #expect(page.messages.count == 10 && page.hasMore)
        #expect(page.messages.first?.text == "group 14")
        let older = try await bob.history(group.conversationId, before: page.messages.last!.seq, limit: 100)
        #expect(older.messages.contains { $0.system?.event == "renamed" })
        let tombstone = try await cat.deleteMessage(page.messages[0].id)
        #expect(tombstone.system?.event == "message_deleted")
        try await bob.hideMessage(page.messages[1].id)
        let list = try await bob.conversations()
        #expect(Set(list.map(\.conversationId)) == [direct.conversationId, group.conversationId])
        #expect(try await bob.conversation(group.conversationId).name == "Three")
        try await ann.leaveGroup(group.conversationId)
        #expect(try await ann.conversation(group.conversationId).active == false)
        #expect(await bobEvents.wait { _ in bobEvents.messages.contains { $0.system?.event == "member_left" } })
        // Bob got every group message exactly once, in order.
        let groupSeqs = bobEvents.messages.filter { $0.conversationId == group.conversationId }.map(\.seq)
        #expect(groupSeqs == groupSeqs.sorted() && Set(groupSeqs).count == groupSeqs.count)
        // A raw request with a typed decode.
        struct Count: Decodable { var conversations: [JSONValue] }
        #expect(try await bob.request(op: "conversations.list", as: Count.self).conversations.count == 2)
        await ann.close()
        await bob.close()
        await cat.close()
    }

    @Test func messagesSurviveDroppedConnectionsExactlyOnceInOrder() async throws {
        try await dropScenario(cuts: 3, intervalMs: 150)
    }

    /// Twelve cuts 40 ms apart, some during re-authentication and catch-ups. (It used to crash the server: a
    /// catch-up page whose write failed freed the connection under `HTTPSession.sendShared`.)
    @Test
    func messagesSurviveRapidCutsExactlyOnceInOrder() async throws {
        try await dropScenario(cuts: 12, intervalMs: 40)
    }

    /// Ann writes to Bob directly, Cat to a group with Bob, and Bob to the group, while Bob's connection is
    /// cut `cuts` times: Bob gets every message exactly once, in order.
    func dropScenario(cuts: Int, intervalMs: Int) async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let proxy = try DropProxy(targetPort: port)
        defer { proxy.stop() }
        let ann = try makeClient(port: port)
        let cat = try makeClient(port: port)
        let bob = try makeClient(port: proxy.port)
        let bobEvents = EventLog(bob)
        let annUser = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        let catUser = try await registerUser(cat, "Cat")
        try await befriend(ann, bob, bobUser)
        try await befriend(ann, cat, catUser)
        try await befriend(bob, cat, catUser)
        let direct = try await ann.directConversation(with: bobUser.id)
        let group = try await ann.createGroup(name: "G", memberIds: [bobUser.id, catUser.id])
        // Old messages (before Bob's baseline would be history): none yet; Bob's session baseline is set: the
        // registrations' `conversations.list` (one per client) were answered, and Bob's ping came back behind his.
        #expect(await eventually { ((try? answered(port, op: "conversations.list")) ?? 0) >= 3 })
        try await bob.ping()

        let count = 300
        async let annSends: Void = {
            for i in 0..<count {
                try await ann.sendText("a\(i)", to: .conversation(direct.conversationId))
            }
        }()
        async let catSends: Void = {
            for i in 0..<count {
                try await cat.sendText("c\(i)", to: .conversation(group.conversationId))
            }
        }()
        async let bobSends: [SendAcknowledgement] = {
            var acks: [SendAcknowledgement] = []
            for i in 0..<40 {
                acks.append(try await bob.sendText("b\(i)", to: .conversation(group.conversationId), timeout: 30))
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            return acks
        }()
        for _ in 0..<cuts {
            try await Task.sleep(nanoseconds: UInt64(intervalMs) * 1_000_000)
            proxy.dropAll()
        }
        try await annSends
        try await catSends
        let bobAcks = try await bobSends
        #expect(Set(bobAcks.map(\.seq)).count == 40)
        // Bob's own messages come back from no catch-up: a lost acknowledgement is completed by the message.
        #expect(bobEvents.messages.filter { $0.senderId == bobUser.id }.isEmpty)

        let complete = await bobEvents.wait(30) { _ in
            let m = bobEvents.messages
            return m.filter { $0.senderId == annUser.id }.count >= count
                && m.filter { $0.senderId == catUser.id }.count >= count
        }
        #expect(complete)
        let messages = bobEvents.messages
        let fromAnn = messages.filter { $0.senderId == annUser.id }
        let fromCat = messages.filter { $0.senderId == catUser.id }
        #expect(fromAnn.map(\.text) == (0..<count).map { "a\($0)" })
        #expect(fromCat.map(\.text) == (0..<count).map { "c\($0)" })
        // Per conversation: strictly increasing seqs, each once.
        for c in [direct.conversationId, group.conversationId] {
            let seqs = messages.filter { $0.conversationId == c }.map(\.seq)
            #expect(seqs == seqs.sorted(), "conversation \(c) out of order")
            #expect(Set(seqs).count == seqs.count, "conversation \(c) has duplicates")
        }
        #expect(bobEvents.count(.authenticated(userId: bobUser.id)) >= 2)
        let resumes = bobEvents.all.compactMap { if case .resumed(let s) = $0 { return s } else { return nil } }
        #expect(resumes.count >= 1)
        // The cuts fell while messages flowed: the catch-ups brought some (what the server sent again and the
        // client had already given is counted as dropped duplicates).
        let caughtUp = resumes.reduce(0) { $0 + $1.messages }
        #expect(caughtUp > 0)
        let duplicates = await bob.duplicatesDropped
        print(
            "client resume (\(cuts) cuts): \(resumes.count) resumes, \(caughtUp) messages caught up, "
                + "\(duplicates) duplicates dropped")
        #expect(proxy.acceptedCount >= 2)
        await ann.close()
        await bob.close()
        await cat.close()
    }

    /// Bob's send reaches the server and is stored, but the connection drops before the acknowledgement gets
    /// back; the catch-up after the reconnect brings his own message. The send completes once with that message's
    /// seq, and Bob's application gets no `message` event for it (as it never does for its own sends).
    @Test func aSendWhoseAcknowledgementWasLostCompletesOnceWithoutAnEvent() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let proxy = try DropProxy(targetPort: port)
        defer { proxy.stop() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: proxy.port)
        let annEvents = EventLog(ann)
        let bobEvents = EventLog(bob)
        _ = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        try await befriend(ann, bob, bobUser)
        let direct = try await ann.directConversation(with: bobUser.id)
        for round in 0..<3 {
            // Bob has seen Ann's latest message, so his resume point is just below his own.
            try await ann.sendText("hello \(round)", to: .conversation(direct.conversationId))
            #expect(await bobEvents.wait { _ in bobEvents.messages.contains { $0.text == "hello \(round)" } })
            proxy.setHoldingReplies(true)
            async let sent = bob.sendText("reply \(round)", to: .conversation(direct.conversationId), timeout: 20)
            #expect(await annEvents.wait { _ in annEvents.messages.contains { $0.text == "reply \(round)" } })
            let stored = try #require(annEvents.messages.first { $0.text == "reply \(round)" })
            proxy.dropAll()
            proxy.setHoldingReplies(false)
            let ack = try await sent
            #expect(ack.seq == stored.seq && ack.messageId == stored.id)
            #expect(
                await bobEvents.wait { _ in
                    bobEvents.all.filter { if case .resumed = $0 { return true } else { return false } }.count > round
                })
        }
        // Any late event, then: none of Bob's own messages was given to him as an event. Barrier: Bob's ping comes
        // back after everything written to his connection before it (the messages held during the resume go right
        // after the sync's reply); Ann's typing, sent after that, reaches his log behind every event given before.
        try await bob.ping()
        try await ann.setTyping(direct.conversationId)
        #expect(await bobEvents.wait { all in all.contains { if case .typing = $0 { true } else { false } } })
        #expect(bobEvents.messages.filter { $0.senderId == bobUser.id }.isEmpty)
        #expect(bobEvents.messages.map(\.text) == ["hello 0", "hello 1", "hello 2"])
        await ann.close()
        await bob.close()
    }

    @Test func authenticateResumesFromSavedPoints() async throws {
        let (server, port, database) = try startProtocolServer()
        defer { stop(server); database.close() }
        let ann = try makeClient(port: port)
        let bob = try makeClient(port: port)
        let bobEvents = EventLog(bob)
        _ = try await registerUser(ann, "Ann")
        let bobUser = try await registerUser(bob, "Bob")
        try await befriend(ann, bob, bobUser)
        for i in 0..<5 { try await ann.sendText("m\(i)", to: .user(bobUser.id)) }
        #expect(await bobEvents.wait { _ in bobEvents.messages.count == 5 })
        let points = await bob.resumePoints
        #expect(points.count == 1)
        await bob.close()
        // While Bob's process is gone, Ann writes more.
        for i in 5..<12 { try await ann.sendText("m\(i)", to: .user(bobUser.id)) }
        let again = try makeClient(port: port)
        let againEvents = EventLog(again)
        try await again.authenticate(token: bobUser.credentials.sessionToken, resumeFrom: points)
        #expect(
            await againEvents.wait { all in all.contains { if case .resumed = $0 { return true } else { return false } }
            })
        #expect(againEvents.messages.map(\.text) == (5..<12).map { "m\($0)" })
        // Live messages continue after the catch-up.
        try await ann.sendText("live", to: .user(bobUser.id))
        #expect(await againEvents.wait { _ in againEvents.messages.last?.text == "live" })
        #expect(againEvents.messages.count == 8)
        // A catch-up on demand from the start repeats what this client has given: it drops all of it.
        let direct = try #require(againEvents.messages.first?.conversationId)
        let summary = try await again.sync(since: [direct: 0])
        #expect(summary.messages >= 12)
        #expect(await again.duplicatesDropped >= 12)
        try await ann.sendText("after", to: .user(bobUser.id))
        #expect(await againEvents.wait { _ in againEvents.messages.last?.text == "after" })
        #expect(againEvents.messages.map(\.text) == (5..<12).map { "m\($0)" } + ["live", "after"])
        await ann.close()
        await again.close()
    }
}
