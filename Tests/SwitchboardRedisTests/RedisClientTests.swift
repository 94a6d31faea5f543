//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Synchronization
import Testing

@testable import SwitchboardRedis

@Suite struct RedisClientTests {
    @Test func commandsAndBinarySafePayloads() async throws {
        let client = try await connectedClient(try TestRedis.configuration())
        defer { client.close() }
        let key = uniqueName("binary")
        let payload: [UInt8] = [0, 0xFF, 13, 10, 0, 36, 42, 0xFE] + Array(0...255)
        #expect(try await client.send("SET", key, payload) == .simpleString("OK"))
        #expect(try await client.send("GET", key) == .bulk(payload))
        #expect(try await client.send("STRLEN", key) == .integer(Int64(payload.count)))
        #expect(try await client.send("GET", uniqueName("missing")) == .null)
        #expect(try await client.send("DEL", key) == .integer(1))
        // A binary key, too.
        let binaryKey = Array(key.utf8) + [0, 0xFF]
        _ = try await client.send("SET", binaryKey, "v")
        #expect(try await client.send("GET", binaryKey).string == "v")
        _ = try await client.send("DEL", binaryKey)
        await #expect(throws: RedisError.self) { try await client.send("NOSUCHCOMMAND") }
        do {
            _ = try await client.send("INCR", "\(key):", "extra")
        } catch let error {
            #expect(error.serverCode == "ERR")
        }
    }

    @Test func aPipelineOfAThousandCommandsIsAnsweredInOrder() async throws {
        let client = try await connectedClient(try TestRedis.configuration())
        defer { client.close() }
        let key = uniqueName("pipeline")
        var commands: [RedisCommand] = []
        for i in 0..<1000 { commands.append(RedisCommand("RPUSH", key, i)) }
        let replies = try await client.pipeline(commands)
        #expect(replies == (1...1000).map { RedisValue.integer(Int64($0)) })
        let list = try await client.send("LRANGE", key, 0, -1)
        #expect(list.array?.compactMap { $0.string.flatMap { Int($0) } } == Array(0..<1000))
        // An error reply stays in its place; the rest are answered.
        let mixed = try await client.pipeline([
            RedisCommand("PING"), RedisCommand("LPUSH", "\(key):x"), RedisCommand("DEL", key),
        ])
        #expect(mixed.count == 3 && mixed[0] == .simpleString("PONG") && mixed[2] == .integer(1))
        if case .error = mixed[1] {} else { Issue.record("expected an error reply, got \(mixed[1])") }
    }

    @Test func concurrentCallersAndTheCallbackAPI() async throws {
        let client = try await connectedClient(try TestRedis.configuration())
        defer { client.close() }
        let key = uniqueName("concurrent")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { for _ in 0..<50 { _ = try await client.send("INCR", key) } }
            }
            try await group.waitForAll()
        }
        #expect(try await client.send("GET", key).string == "1000")
        // The callback variant, from a Dispatch queue without Swift concurrency.
        let queue = DispatchQueue(label: "test.callbacks")
        let results = Mutex<[Int64]>([])
        let done = DispatchSemaphore(value: 0)
        queue.async {
            for _ in 0..<10 {
                client.send(RedisCommand("INCR", key), queue: queue) { result in
                    results.withLock { $0.append((try? result.get())?.integer ?? -1) }
                    done.signal()
                }
            }
        }
        for _ in 0..<10 { #expect(done.wait(timeout: .now() + 10) == .success) }
        #expect(results.withLock { $0 } == Array(1001...1010))
        _ = try await client.send("DEL", key)
    }

    @Test func evalshaFallsBackToEvalOnNoscript() async throws {
        let client = try await connectedClient(try TestRedis.configuration())
        defer { client.close() }
        let script = RedisScript("return {KEYS[1], ARGV[1], '\(UUID().uuidString)'}")
        let first = try await client.evaluate(script, keys: [Array("k".utf8)], arguments: [[0, 0xFF]])
        #expect(first.array?.prefix(2) == [.bulk(Array("k".utf8)), .bulk([0, 0xFF])])
        // Now cached: EVALSHA alone answers.
        let second = try await client.send(script.command(sha: true, keys: [Array("k".utf8)], arguments: [[1]]))
        #expect(second.array?[1] == .bulk([1]))
    }

    @Test func unavailableAtOnceWhileRedisIsDownThenRecoveryWithoutRestart() async throws {
        let server = RedisServerProcess()
        try server.start()
        defer { server.stop() }
        var configuration = try RedisConfiguration(url: server.url)
        configuration.reconnectMinDelay = .milliseconds(20)
        configuration.reconnectMaxDelay = .milliseconds(200)
        configuration.healthCheckInterval = .milliseconds(100)
        let states = Inbox()
        let client = try RedisClient(configuration: configuration, logger: quietLogger()) { states.add($0) }
        defer { client.close() }
        #expect(await eventually { client.state == .connected })
        #expect(try await client.send("PING") == .simpleString("PONG"))

        server.stop()
        // The idle client notices the loss by its health-check PING, without a command of ours.
        #expect(await eventually { if case .disconnected = client.state { return true } else { return false } })
        // Refused without being sent (`.unavailable` is only ever answered before a write).
        await #expect(throws: RedisError.unavailable) { try await client.send("PING") }
        #expect(client.pendingCommands == 0)

        try server.start()
        #expect(await eventually { client.state == .connected })
        #expect(try await client.send("PING") == .simpleString("PONG"))
        #expect(await eventually { states.states.filter { $0 == .connected }.count == 2 })
        #expect(states.states.first == .connected)
        #expect(states.states.contains { if case .disconnected = $0 { true } else { false } })
    }

    @Test func commandsInFlightWhenTheConnectionBreaksFailAsConnectionLost() async throws {
        let server = RedisServerProcess()
        try server.start()
        defer { server.stop() }
        var configuration = try RedisConfiguration(url: server.url)
        configuration.commandTimeout = .seconds(10)
        let client = try await connectedClient(configuration)
        defer { client.close() }
        let blocked = Task { try await client.send("BLPOP", uniqueName("never"), "5") }
        #expect(await eventually { client.pendingCommands == 1 })
        server.stop()
        await #expect {
            try await blocked.value
        } throws: { error in
            if case .connectionLost = error as? RedisError { return true }
            return false
        }
        #expect(client.pendingCommands == 0)
    }

    @Test func callbackPipelineAndEvaluate() async throws {
        let client = try await connectedClient(try TestRedis.configuration())
        defer { client.close() }
        let queue = DispatchQueue(label: "test.callbacks")
        let key = uniqueName("callback")
        let replies: Result<[RedisValue], RedisError> = await withCheckedContinuation { continuation in
            client.pipeline([RedisCommand("SET", key, "1"), RedisCommand("INCRBY", key, 41)], queue: queue) {
                dispatchPrecondition(condition: .onQueue(queue))
                continuation.resume(returning: $0)
            }
        }
        #expect(try replies.get() == [.simpleString("OK"), .integer(42)])
        let script = RedisScript("return redis.call('GET', KEYS[1]) .. '\(UUID().uuidString)'")
        let value: Result<RedisValue, RedisError> = await withCheckedContinuation { continuation in
            client.evaluate(script, keys: [Array(key.utf8)], queue: queue) { continuation.resume(returning: $0) }
        }
        #expect(try value.get().string?.hasPrefix("42") == true)
        _ = try await client.send("DEL", key)
    }

    @Test func aCommandTimeoutClosesTheConnectionAndTheClientStaysUsable() async throws {
        // Its own server: DEBUG SLEEP stops the whole server for 2 s.
        let server = RedisServerProcess()
        try server.start()
        defer { server.stop() }
        var configuration = try RedisConfiguration(url: server.url)
        configuration.commandTimeout = .milliseconds(200)
        configuration.reconnectMinDelay = .milliseconds(20)
        let client = try await connectedClient(configuration)
        defer { client.close() }
        // `.timeout`, not the reply the server sends after 2 s.
        await #expect(throws: RedisError.timeout) { try await client.send("DEBUG", "SLEEP", "2") }
        // Reconnects (the connect waits for the server to finish sleeping) and works again.
        // Once the server woke up: reconnected, and commands are answered again.
        #expect(await eventuallyAsync { (try? await client.send("ECHO", "after")) == .bulk(Array("after".utf8)) })
        #expect(client.state == .connected)
    }

    @Test func authSucceedsAndAWrongPasswordIsAnError() async throws {
        let server = RedisServerProcess(arguments: [
            "--requirepass", "s3cret", "--user", "alice", "on", ">wonder", "~*", "+@all",
        ])
        try server.start()
        defer { server.stop() }
        var goodConfiguration = try RedisConfiguration(url: "redis://:s3cret@127.0.0.1:\(server.port)/2")
        goodConfiguration.reconnectMinDelay = .milliseconds(20)
        goodConfiguration.healthCheckInterval = .milliseconds(100)
        let good = try await connectedClient(goodConfiguration)
        #expect(try await good.send("PING") == .simpleString("PONG"))
        #expect(try await good.send("CLIENT", "INFO").string?.contains(" db=2 ") == true)
        // AUTH and SELECT again on reconnect.
        server.stop()
        #expect(await eventually { good.state != .connected })
        try server.start()
        #expect(await eventually { good.state == .connected })
        #expect(try await good.send("CLIENT", "INFO").string?.contains(" db=2 ") == true)
        good.close()
        let acl = try await connectedClient(
            try RedisConfiguration(url: "redis://alice:wonder@127.0.0.1:\(server.port)"))
        #expect(try await acl.send("ACL", "WHOAMI") == .bulk(Array("alice".utf8)))
        acl.close()

        let states = Inbox()
        let bad = try RedisClient(
            configuration: try RedisConfiguration(url: "redis://:wrong@127.0.0.1:\(server.port)"), logger: quietLogger()
        ) { states.add($0) }
        defer { bad.close() }
        #expect(await eventually { !states.states.isEmpty })
        guard case .disconnected(.connectFailed(let why)) = states.states.first else {
            Issue.record("expected an AUTH failure, got \(states.states)")
            return
        }
        #expect(why.contains("WRONGPASS") && !why.contains("wrong@"))
        await #expect(throws: RedisError.unavailable) { try await bad.send("PING") }
    }

    @Test func aMalformedReplyIsAnErrorNotACrash() async throws {
        let fake = FakeRedisServer(answer: Array("?this is not RESP\r\n".utf8))
        defer { fake.close() }
        var configuration = RedisConfiguration(host: "127.0.0.1", port: fake.port)
        configuration.reconnectMinDelay = .milliseconds(50)
        // No health-check PING behind the test's back: on a starved machine it could meet the garbage first and
        // leave the client reconnecting when the test looks (seen once in a full parallel run).
        configuration.healthCheckInterval = .seconds(3600)
        let client = try await connectedClient(configuration)
        defer { client.close() }
        do {
            _ = try await client.send("PING")
            Issue.record("garbage was accepted")
        } catch let error {
            guard case .protocolError = error else {
                Issue.record("expected a protocol error, got \(error)")
                return
            }
        }
        // A huge array header from the server is refused, not allocated.
        let huge = FakeRedisServer(answer: Array("*2147483647\r\n".utf8))
        defer { huge.close() }
        var hugeConfiguration = RedisConfiguration(host: "127.0.0.1", port: huge.port)
        hugeConfiguration.healthCheckInterval = .seconds(3600)
        let other = try await connectedClient(hugeConfiguration)
        defer { other.close() }
        await #expect(throws: RedisError.self) { try await other.send("PING") }
    }

    @Test func pastMaxPendingCommandsIsOverloaded() async throws {
        let server = RedisServerProcess()
        try server.start()
        defer { server.stop() }
        var configuration = try RedisConfiguration(url: server.url)
        configuration.maxPendingCommands = 3
        // Nothing in this test ends on a clock: the pop blocks until the test pushes (no BLPOP timeout, no command
        // timeout a stalled run could reach) and no health-check PING joins the queue behind the test's back.
        configuration.commandTimeout = .seconds(3600)
        configuration.healthCheckInterval = .seconds(3600)
        let client = try await connectedClient(configuration)
        defer { client.close() }
        let pusher = try await connectedClient(try RedisConfiguration(url: server.url))
        defer { pusher.close() }
        let key = uniqueName("blocked")
        // A blocking pop holds the connection until the push below, so the next commands wait in the queue.
        let blocked = Task { try await client.send("BLPOP", key, "0") }
        #expect(await eventually { client.pendingCommands == 1 })
        let waiting = Task { try await client.pipeline([RedisCommand("PING"), RedisCommand("PING")]) }
        #expect(await eventually { client.pendingCommands == 3 })
        await #expect(throws: RedisError.overloaded) { try await client.send("PING") }
        #expect(try await pusher.send("RPUSH", key, "released") == .integer(1))
        #expect(try await blocked.value == .array([.bulk(Array(key.utf8)), .bulk(Array("released".utf8))]))
        #expect(try await waiting.value.count == 2)
    }

    @Test func tlsWithASelfSignedCertificate() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redis-tls-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", "\(folder)/key.pem", "-out", "\(folder)/cert.pem",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        #expect(openssl.terminationStatus == 0)
        let tlsPort = freePort()
        let server = RedisServerProcess(arguments: [
            "--tls-port", String(tlsPort), "--tls-cert-file", "\(folder)/cert.pem", "--tls-key-file",
            "\(folder)/key.pem",
            "--tls-ca-cert-file", "\(folder)/cert.pem", "--tls-auth-clients", "no",
        ])
        try server.start(readyPort: tlsPort)
        defer { server.stop() }

        var configuration = try RedisConfiguration(url: "rediss://127.0.0.1:\(tlsPort)")
        configuration.caFile = "\(folder)/cert.pem"
        let client = try await connectedClient(configuration)
        let big = [UInt8](repeating: 0xAB, count: 200_000) + [0, 0xFF]
        let key = uniqueName("tls")
        _ = try await client.send("SET", key, big)
        #expect(try await client.send("GET", key) == .bulk(big))
        let replies = try await client.pipeline((0..<500).map { RedisCommand("ECHO", $0) })
        #expect(replies == (0..<500).map { .bulk(Array(String($0).utf8)) })
        client.close()

        // The name is checked: "localhost" is in the certificate, "example.com" is not.
        configuration.serverName = "localhost"
        try await connectedClient(configuration).close()
        configuration.serverName = "example.com"
        let states = Inbox()
        let wrongName = try RedisClient(configuration: configuration, logger: quietLogger()) { states.add($0) }
        defer { wrongName.close() }
        #expect(await eventually { !states.states.isEmpty })
        #expect("\(states.states)".contains("certificate"))

        // And without the CA the self-signed certificate is refused.
        var untrusted = try RedisConfiguration(url: "rediss://127.0.0.1:\(tlsPort)")
        untrusted.reconnectMinDelay = .seconds(1)
        let refused = Inbox()
        let noCA = try RedisClient(configuration: untrusted, logger: quietLogger()) { refused.add($0) }
        defer { noCA.close() }
        #expect(await eventually { !refused.states.isEmpty })
        #expect(refused.states.first != .connected)
    }
}
