//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import Synchronization

@testable import SwitchboardRedis

#if canImport(Glibc)
import Glibc
#endif

func quietLogger() -> Logger {
    var logger = Logger(label: "redis-test") { _ in SwiftLogNoOpLogHandler() }
    logger.logLevel = .critical
    return logger
}

/// A unique prefix for keys and channels, so tests sharing one Redis never meet.
func uniqueName(_ base: String) -> String { "test:\(base):\(UUID().uuidString.prefix(8))" }

/// A TCP port on 127.0.0.1 that was free a moment ago.
func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// Polls `condition` every 10 ms until it holds or `timeout` passes; returns whether it held.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// Polls an async `condition` every 20 ms until it holds or `timeout` passes; returns whether it held.
func eventuallyAsync(timeout: Duration = .seconds(10), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

/// A `redis-server` child on a loopback port: started with `start()`, stopped by its PID with `stop()`.
final class RedisServerProcess: @unchecked Sendable {
    // @unchecked Sendable: `process` is only touched under `lock`.
    let port: Int
    let extraArguments: [String]
    private let lock = NSLock()
    private var process: Process?  // protected by lock

    init(port: Int = freePort(), arguments: [String] = []) {
        self.port = port
        self.extraArguments = arguments
    }

    var url: String { "redis://127.0.0.1:\(port)" }

    /// Starts the server and waits (up to 10 s) until it accepts connections on `readyPort` (default `port`).
    func start(readyPort: Int? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/redis-server")
        process.arguments =
            [
                "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                "--daemonize", "no", "--enable-debug-command", "local", "--loglevel", "warning",
            ] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        lock.withLock { self.process = process }
        let probe = readyPort ?? port
        for _ in 0..<1000 {
            if canConnect(port: probe) { return }
            if !process.isRunning { throw RedisError.connectFailed("redis-server exited at start") }
            usleep(10_000)
        }
        stop()
        throw RedisError.connectFailed("redis-server did not start")
    }

    /// The child's PID (0 when not running).
    var processID: Int32 { lock.withLock { process?.processIdentifier ?? 0 } }

    /// Stops the server (SIGKILL to its PID, like a crash) and reaps it.
    func stop() {
        guard
            let process = lock.withLock({ () -> Process? in
                defer { self.process = nil }
                return self.process
            })
        else { return }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit { stop() }
}

func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// The Redis of the test run: `SWITCHBOARD_TEST_REDIS_URL` (scripts/test-redis.sh) if set, else a `redis-server`
/// started for this process and stopped by an `atexit` hook.
enum TestRedis {
    private static let started = Mutex<RedisServerProcess?>(nil)

    static let url: String = {
        if let url = ProcessInfo.processInfo.environment["SWITCHBOARD_TEST_REDIS_URL"], !url.isEmpty { return url }
        let server = RedisServerProcess()
        do {
            try server.start()
        } catch {
            fatalError("cannot start redis-server: \(error)")
        }
        started.withLock { $0 = server }
        atexit { TestRedis.started.withLock { $0 }?.stop() }
        return server.url
    }()

    static func configuration() throws -> RedisConfiguration { try RedisConfiguration(url: url) }
}

/// A client that is connected (waits up to 10 s).
func connectedClient(_ configuration: RedisConfiguration) async throws -> RedisClient {
    let client = try RedisClient(configuration: configuration, logger: quietLogger())
    guard await eventually({ client.state == .connected }) else {
        client.close()
        throw RedisError.connectFailed("test client did not connect: \(client.state)")
    }
    return client
}

/// Collects what a subscriber delivers, in order.
final class Inbox: Sendable {
    /// Protected by: its mutex.
    private let storage = Mutex<(messages: [RedisMessage], states: [RedisConnectionState])>(([], []))

    func add(_ message: RedisMessage) { storage.withLock { $0.messages.append(message) } }
    func add(_ state: RedisConnectionState) { storage.withLock { $0.states.append(state) } }
    var messages: [RedisMessage] { storage.withLock { $0.messages } }
    var states: [RedisConnectionState] { storage.withLock { $0.states } }
}

/// A TCP listener on 127.0.0.1 that answers every connection with fixed bytes after the first read (a fake,
/// broken Redis). Runs on its own thread; `close()` stops it.
final class FakeRedisServer: @unchecked Sendable {
    // @unchecked Sendable: `listener` is set in init; the accepted fds are only used by the server's thread.
    let port: Int
    private let listener: Int32
    /// Signalled when the serving thread has ended.
    private let finished = DispatchSemaphore(value: 0)

    init(answer: [UInt8]) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listen(fd, 16)
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [finished] in
            defer { finished.signal() }
            // Bounded: ends when close() shuts the listener down (accept fails).
            while true {
                let client = accept(fd, nil, nil)
                if client < 0 { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = recv(client, &buffer, buffer.count, 0)
                _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                // Keep it open briefly so the client sees the garbage, not just EOF.
                usleep(200_000)
                Glibc.close(client)
            }
        }
        thread.start()
    }

    /// Wakes the thread's `accept` (shutdown), waits for the thread to end, then closes the socket: closed first, its
    /// descriptor number could be reused by another test's socket while the thread was still on its way back to
    /// `accept` (the same race as `ScriptedPhotoServer.stop`'s).
    func close() {
        shutdown(listener, Int32(SHUT_RDWR))
        _ = finished.wait(timeout: .now() + 30)
        Glibc.close(listener)
    }
}
