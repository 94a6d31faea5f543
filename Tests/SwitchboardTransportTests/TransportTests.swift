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
import Synchronization
import Testing

@testable import SwitchboardTransport

#if canImport(Glibc)
import Glibc
#endif

/// Echoes every byte; counts sweeps.
final class EchoHandler: ConnectionHandler {
    /// Sweeps seen. Atomic (was a plain `var`, which ThreadSanitizer reported): a connection's loop counts them, and
    /// a test reads them from another queue (it does not know which loop owns its connection).
    let sweeps = Atomic<Int>(0)
    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        connection.write(Array(bytes))
    }
    func connection(_ connection: Connection, sweepAt now: UInt64) { sweeps.add(1, ordering: .relaxed) }
}

/// Collects what a client connection reads; signals when `expected` bytes arrived.
final class Collector: ConnectionHandler, @unchecked Sendable {
    // @unchecked Sendable: fields are touched on the connection's loop, read after `done` fired.
    var received: [UInt8] = []
    var expected: Int
    let done = DispatchSemaphore(value: 0)
    var closed = false
    init(expected: Int) { self.expected = expected }
    func connection(_ connection: Connection, didRead bytes: UnsafeRawBufferPointer) {
        received.append(contentsOf: bytes)
        if received.count >= expected { done.signal() }
    }
    func connectionDidClose(_ connection: Connection, error: (any Error)?) {
        closed = true
        done.signal()
    }
}

func makeServer(
    maxConnections: Int = 1000,
    handler: @escaping @Sendable (Connection) -> any ConnectionHandler = { _ in EchoHandler() }
) throws -> (TransportServer, EventLoopGroup, Int) {
    let group = try EventLoopGroup(loopCount: 2, sweepInterval: 50_000_000)
    var configuration = TransportConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.maxConnections = maxConnections
    let server = TransportServer(
        configuration: configuration, group: group, tls: nil, logger: Logger(label: "t"), makeHandler: handler)
    let port = try server.start()
    return (server, group, port)
}

/// A blocking client socket.
func connectBlocking(_ port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var tv = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard rc == 0 else { throw IOError(errno: errno, function: "connect") }
    return fd
}

func readExactly(_ fd: Int32, _ count: Int) -> [UInt8] {
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while out.count < count {
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n <= 0 { break }
        out.append(contentsOf: chunk[0..<n])
    }
    return out
}

@Suite("Transport over real sockets", .serialized)
struct TransportTests {
    @Test func echoRoundTripAcrossLoops() throws {
        let (server, group, port) = try makeServer()
        defer { server.stopAccepting(); group.shutdown() }
        var fds: [Int32] = []
        for _ in 0..<20 { fds.append(try connectBlocking(port)) }
        for (i, fd) in fds.enumerated() {
            let message = Array("hello \(i)".utf8)
            _ = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            #expect(readExactly(fd, message.count) == message)
        }
        #expect(server.connectionCount == 20)
        for fd in fds { close(fd) }
        let deadline = Date().addingTimeInterval(5)
        while server.connectionCount > 0 && Date() < deadline { usleep(10_000) }
        #expect(server.connectionCount == 0)
    }

    @Test func largeWritesSurviveEAGAINInOrder() throws {
        let (server, group, port) = try makeServer()
        defer { server.stopAccepting(); group.shutdown() }
        let fd = try connectBlocking(port)
        defer { close(fd) }
        // 8 MiB echoed while we do not read: the server's writes hit EAGAIN and must resume in order.
        let total = 8 << 20
        let payload = (0..<total).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let writer = Thread {
            payload.withUnsafeBytes { p in
                var sent = 0
                while sent < total {
                    let n = send(fd, p.baseAddress! + sent, total - sent, 0)
                    if n <= 0 { break }
                    sent += n
                }
            }
        }
        writer.start()
        // Not read until the server has met EAGAIN: bytes left queued on its side of the connection after a turn.
        let deadline = Date().addingTimeInterval(10)
        var backedUp = false
        while !backedUp && Date() < deadline {
            for loop in group.loops {
                loop.queue.sync { loop.forEachConnection { if $0.outboundBytes > 0 { backedUp = true } } }
            }
            if !backedUp { usleep(5_000) }
        }
        #expect(backedUp)
        let echoed = readExactly(fd, total)
        #expect(echoed.count == total)
        #expect(echoed == payload)
    }

    @Test func halfClosedPeerGetsRemainingBytesThenEOF() throws {
        let (server, group, port) = try makeServer()
        defer { server.stopAccepting(); group.shutdown() }
        let fd = try connectBlocking(port)
        defer { close(fd) }
        let message = Array(repeating: UInt8(7), count: 100_000)
        _ = message.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        shutdown(fd, Int32(SHUT_WR))
        #expect(readExactly(fd, message.count) == message)
        var byte: UInt8 = 0
        #expect(recv(fd, &byte, 1, 0) == 0)  // EOF after the server finished writing
    }

    @Test func maxConnectionsRejectsTheRest() throws {
        let (server, group, port) = try makeServer(maxConnections: 3)
        defer { server.stopAccepting(); group.shutdown() }
        var fds: [Int32] = []
        for _ in 0..<5 { fds.append(try connectBlocking(port)) }
        defer { for fd in fds { close(fd) } }
        let deadline = Date().addingTimeInterval(5)
        while server.rejectedTotal < 2 && Date() < deadline { usleep(10_000) }
        #expect(server.rejectedTotal == 2)
        #expect(server.connectionCount == 3)
    }

    @Test func sweepTimerCallsHandlers() throws {
        let handler = EchoHandler()
        nonisolated(unsafe) let shared = handler
        let (server, group, port) = try makeServer(handler: { _ in shared })
        defer { server.stopAccepting(); group.shutdown() }
        let fd = try connectBlocking(port)
        defer { close(fd) }
        var sweeps = 0
        let deadline = Date().addingTimeInterval(10)
        while sweeps < 3 && Date() < deadline {
            usleep(5_000)
            sweeps = handler.sweeps.load(ordering: .relaxed)
        }
        #expect(sweeps >= 3)
    }

    @Test func clientConnectAndSharedBytesFanOut() throws {
        let (server, group, port) = try makeServer()
        defer { server.stopAccepting(); group.shutdown() }
        let frame = SharedBytes(Array("shared frame".utf8))
        let collectors = (0..<4).map { _ in Collector(expected: 12) }
        for collector in collectors {
            let loop = group.nextLoop()
            loop.execute {
                loop.connect(host: "127.0.0.1", port: port, handler: collector) { result in
                    if case .success(let connection) = result { connection.write(frame) }
                }
            }
        }
        for collector in collectors {
            #expect(collector.done.wait(timeout: .now() + 5) == .success)
            #expect(collector.received == Array("shared frame".utf8))
        }
    }

    @Test func aTurnFlushesItsBudgetAndLaterTurnsTheBacklog() throws {
        let (server, group, port) = try makeServer()
        defer { server.stopAccepting(); group.shutdown() }
        // No sweep during the test: a sweep ends with a flush, which would take from the backlog before it is looked
        // at.
        let clients = try EventLoopGroup(loopCount: 1, sweepInterval: 3_600_000_000_000, flushBudget: 2)
        defer { clients.shutdown() }
        let loop = clients.loops[0]
        let collectors = (0..<6).map { _ in Collector(expected: 5) }
        let connected = DispatchSemaphore(value: 0)
        let connections = Mutex<[Connection]>([])
        for collector in collectors {
            loop.execute {
                loop.connect(host: "127.0.0.1", port: port, handler: collector) { result in
                    if case .success(let connection) = result { connections.withLock { $0.append(connection) } }
                    connected.signal()
                }
            }
        }
        for _ in collectors { #expect(connected.wait(timeout: .now() + 5) == .success) }
        #expect(connections.withLock { $0.count } == 6)
        let waiting = Mutex<Int?>(nil)
        loop.queue.async {
            // One turn, driven by hand on the loop's queue (nothing else can run in between): it writes to six
            // connections; two are flushed from the turn, two from the backlog, two wait for the backlog's own turn.
            loop.inBatch = true
            for connection in connections.withLock({ $0 }) { connection.write(Array("hello".utf8)) }
            loop.flushPending()
            loop.inBatch = false
            waiting.withLock { $0 = loop.flushBacklogCount }
        }
        for collector in collectors {
            #expect(collector.done.wait(timeout: .now() + 5) == .success)
            #expect(collector.received == Array("hello".utf8))
        }
        #expect(waiting.withLock { $0 } == 2)
        let after = DispatchSemaphore(value: 0)
        let left = Mutex<Int>(-1)
        loop.execute {
            left.withLock { $0 = loop.flushBacklogCount }
            after.signal()
        }
        #expect(after.wait(timeout: .now() + 5) == .success)
        #expect(left.withLock { $0 } == 0)
    }

    @Test func connectToClosedPortFails() throws {
        let group = try EventLoopGroup(loopCount: 1)
        defer { group.shutdown() }
        // Bind and close a socket to find a port nobody listens on.
        var listening = TransportConfiguration()
        listening.host = "127.0.0.1"
        listening.port = 0
        let probe = try TransportServer.bindListen(listening)
        let port = TransportServer.boundPort(probe)
        close(probe)
        let failed = DispatchSemaphore(value: 0)
        let loop = group.loops[0]
        loop.execute {
            loop.connect(host: "127.0.0.1", port: port, handler: Collector(expected: 1)) { result in
                if case .failure = result { failed.signal() }
            }
        }
        #expect(failed.wait(timeout: .now() + 5) == .success)
    }

    @Test func acceptBackoffDoublesToOneSecond() {
        var backoff = AcceptBackoff()
        #expect(backoff.exhausted() == 100_000_000)
        #expect(backoff.exhausted() == 200_000_000)
        #expect(backoff.exhausted() == 400_000_000)
        #expect(backoff.exhausted() == 800_000_000)
        #expect(backoff.exhausted() == 1_000_000_000)
        #expect(backoff.exhausted() == 1_000_000_000)
        backoff.succeeded()
        #expect(backoff.exhausted() == 100_000_000)
    }
}
