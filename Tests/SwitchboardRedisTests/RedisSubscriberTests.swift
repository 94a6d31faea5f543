//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Testing

@testable import SwitchboardRedis

@Suite struct RedisSubscriberTests {
    @Test func messagesArriveInPublishOrderWithBinaryPayloads() async throws {
        let configuration = try TestRedis.configuration()
        let inbox = Inbox()
        let subscriber = try RedisSubscriber(
            configuration: configuration, logger: quietLogger(), handlerQueue: DispatchQueue(label: "test.sub"),
            handler: { inbox.add($0) }, stateHandler: { inbox.add($0) })
        defer { subscriber.close() }
        let channel = uniqueName("order")
        let other = uniqueName("other")
        await subscriber.subscribe([channel, other])
        let client = try await connectedClient(configuration)
        defer { client.close() }
        var commands: [RedisCommand] = []
        for i in 0..<500 {
            commands.append(RedisCommand("PUBLISH", i % 5 == 0 ? other : channel, [0, 0xFF] + Array(String(i).utf8)))
        }
        let receivers = try await client.pipeline(commands)
        #expect(receivers.allSatisfy { $0 == .integer(1) })
        #expect(await eventually { inbox.messages.count == 500 })
        #expect(inbox.messages.map(\.payload) == (0..<500).map { [0, 0xFF] + Array(String($0).utf8) })
        #expect(
            inbox.messages.map { String(decoding: $0.channel, as: UTF8.self) }
                == (0..<500).map { $0 % 5 == 0 ? other : channel })
        #expect(inbox.states.first == .connected)

        // Unsubscribed: no more messages from it.
        subscriber.unsubscribe([Array(other.utf8)])
        #expect(await eventuallyAsync { (try? await client.send("PUBLISH", other, "x")) == .integer(0) })
        _ = try await client.send("PUBLISH", channel, "last")
        #expect(await eventually { inbox.messages.last?.payload == Array("last".utf8) })
        // Only the probes published before Redis processed the UNSUBSCRIBE came through, then nothing from it.
        let after = inbox.messages.dropFirst(500).map { String(decoding: $0.payload, as: UTF8.self) }
        #expect(after.last == "last" && after.dropLast().allSatisfy { $0 == "x" })
    }

    @Test func shardedChannels() async throws {
        let configuration = try TestRedis.configuration()
        let inbox = Inbox()
        let subscriber = try RedisSubscriber(
            configuration: configuration, logger: quietLogger(), handlerQueue: DispatchQueue(label: "test.sub"),
            handler: { inbox.add($0) })
        defer { subscriber.close() }
        let channels = (0..<3).map { uniqueName("sharded\($0)") }
        await subscriber.subscribe(channels, sharded: true)
        let client = try await connectedClient(configuration)
        defer { client.close() }
        for (i, channel) in channels.enumerated() { _ = try await client.send("SPUBLISH", channel, "m\(i)") }
        #expect(await eventually { inbox.messages.count == 3 })
        #expect(inbox.messages.map(\.sharded) == [true, true, true])
        #expect(inbox.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["m0", "m1", "m2"])
    }

    @Test func subscriptionsFromManyThreadsAtOnce() async throws {
        let configuration = try TestRedis.configuration()
        let inbox = Inbox()
        let subscriber = try RedisSubscriber(
            configuration: configuration, logger: quietLogger(), handlerQueue: DispatchQueue(label: "test.sub"),
            handler: { inbox.add($0) })
        defer { subscriber.close() }
        let base = uniqueName("many")
        let confirmed = DispatchGroup()
        DispatchQueue.concurrentPerform(iterations: 50) { i in
            confirmed.enter()
            subscriber.subscribe([Array("\(base):\(i)".utf8)]) { confirmed.leave() }
        }
        #expect(confirmed.wait(timeout: .now() + 10) == .success)
        let client = try await connectedClient(configuration)
        defer { client.close() }
        for i in 0..<50 { #expect(try await client.send("PUBLISH", "\(base):\(i)", "\(i)") == .integer(1)) }
        #expect(await eventually { inbox.messages.count == 50 })
    }

    @Test func resubscribesAfterTheServerRestarts() async throws {
        let server = RedisServerProcess()
        try server.start()
        defer { server.stop() }
        var configuration = try RedisConfiguration(url: server.url)
        configuration.reconnectMinDelay = .milliseconds(20)
        configuration.reconnectMaxDelay = .milliseconds(200)
        let inbox = Inbox()
        let subscriber = try RedisSubscriber(
            configuration: configuration, logger: quietLogger(), handlerQueue: DispatchQueue(label: "test.sub"),
            handler: { inbox.add($0) }, stateHandler: { inbox.add($0) })
        defer { subscriber.close() }
        await subscriber.subscribe(["plain"])
        await subscriber.subscribe(["shard"], sharded: true)
        #expect(await eventually { inbox.states == [.connected] })
        let client = try await connectedClient(configuration)
        defer { client.close() }
        _ = try await client.send("PUBLISH", "plain", "before")
        #expect(await eventually { inbox.messages.count == 1 })

        server.stop()
        #expect(await eventually { inbox.states.count == 2 })
        guard case .disconnected = inbox.states[1] else {
            Issue.record("expected disconnected, got \(inbox.states)")
            return
        }
        try server.start()
        // `.connected` comes once both channels are confirmed again: a publish after it is delivered.
        #expect(await eventually { inbox.states.count == 3 })
        #expect(inbox.states.last == .connected)
        #expect(await eventuallyAsync { (try? await client.send("PUBLISH", "plain", "after")) == .integer(1) })
        _ = try await client.send("SPUBLISH", "shard", "after-sharded")
        #expect(await eventually { inbox.messages.count == 3 })
        #expect(
            inbox.messages.map { String(decoding: $0.payload, as: UTF8.self) } == ["before", "after", "after-sharded"])
        #expect(inbox.messages.last?.sharded == true)
    }

    @Test func aDeadConnectionIsFoundByThePing() async throws {
        let server = RedisServerProcess()
        try server.start()
        defer { server.stop() }
        var configuration = try RedisConfiguration(url: server.url)
        configuration.healthCheckInterval = .milliseconds(100)
        configuration.commandTimeout = .milliseconds(300)
        let inbox = Inbox()
        let subscriber = try RedisSubscriber(
            configuration: configuration, logger: quietLogger(), handlerQueue: DispatchQueue(label: "test.sub"),
            handler: { inbox.add($0) }, stateHandler: { inbox.add($0) })
        defer { subscriber.close() }
        await subscriber.subscribe(["quiet"])
        #expect(await eventually { inbox.states == [.connected] })
        // A stopped (not killed) server keeps the socket open but answers nothing.
        kill(server.processID, SIGSTOP)
        #expect(await eventually { inbox.states.count >= 2 })
        kill(server.processID, SIGCONT)
        if case .disconnected(.timeout) = inbox.states[1] {
        } else {
            Issue.record("expected a ping timeout: \(inbox.states)")
        }
        #expect(await eventually { inbox.states.last == .connected })
    }

    @Test func aSubscribeWaitingForRedisReturnsWhenTheSubscriberCloses() async throws {
        // Nothing listens on this port: the subscription waits for a connection that never comes.
        var configuration = RedisConfiguration(host: "127.0.0.1", port: freePort())
        configuration.reconnectMinDelay = .milliseconds(20)
        let inbox = Inbox()
        let subscriber = try RedisSubscriber(
            configuration: configuration, logger: quietLogger(), handlerQueue: DispatchQueue(label: "test.sub"),
            handler: { inbox.add($0) }, stateHandler: { inbox.add($0) })
        let waiting = Task { await subscriber.subscribe(["never"]) }
        #expect(await eventually { inbox.states.count == 1 })
        if case .disconnected(.connectFailed) = inbox.states[0] {} else { Issue.record("\(inbox.states)") }
        // The task may start after the first connect attempt failed: wait for its subscription to be recorded.
        #expect(await eventually { subscriber.subscriptions.channels == [Array("never".utf8)] })
        subscriber.close()
        await waiting.value
        #expect(await eventually { inbox.states.last == .closed })
        #expect(subscriber.state == .closed)
    }
}
