//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import SwitchboardRedis
import Testing

@testable import SwitchboardServer

#if canImport(Glibc)
import Glibc
#endif

/// Issue 37, item 2: `/readyz` (`ClusterNode.isReady`) covers both of a node's Redis connections, the subscription
/// and the one that publishes, and after an outage answers ready only once a PUBLISH went through again.
@Suite("Cluster: readiness", .enabled(if: FileManager.default.isExecutableFile(atPath: RedisChild.binary)))
struct ClusterReadinessTests {
    @Test func aNodeIsNotReadyUntilBothRedisConnectionsAreBackAndItPublishedAgain() async throws {
        let redis = RedisChild()
        try redis.start()
        defer { redis.stop() }
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        // A Redis timeout of 3 s, not 1: under ThreadSanitizer beside 300 other tests a command took over a second,
        // the node reset its connection again and again, and was not ready within the wait (once, in a full run).
        let runtime = try ClusterRuntime.join(
            ClusterConfiguration(redisURL: redis.url, heartbeatInterval: 0.3, heartbeatTTL: 2, redisTimeout: 3),
            metrics: ServerMetrics(loopCount: 1), logger: logger)
        runtime.start()
        defer { runtime.stop() }
        let node = runtime.node
        #expect(await eventually { node.isReady }, "the node never became ready")
        let admin = try RedisClient(configuration: RedisConfiguration(url: redis.url), label: "admin", logger: logger)
        defer { admin.close() }
        #expect(await eventually { admin.state == .connected })

        // Only the connection that publishes drops (the subscription stays up): not ready until it is back and the
        // node has published again (the counts are reset first, so any PUBLISH counted is the recovery's).
        // The node notices the drop at its next heartbeat and is not ready until it recovered; that window can be a
        // few milliseconds, shorter than a poll under the test command's load, so the test waits for the node to
        // count the drop and then checks that it was ready again only after a PUBLISH.
        let losses = node.readinessLossCount
        _ = try await admin.send("CONFIG", "RESETSTAT")
        _ = try await admin.send("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes")
        #expect(await eventually(30) { node.readinessLossCount > losses }, "the node never saw its connection drop")
        #expect(node.isBusUp, "the subscription dropped too: this part tests nothing")
        try await expectReadyOnlyAfterAPublish(node, admin)

        // Redis stops, and comes back empty: not ready meanwhile, ready again only after a PUBLISH.
        redis.stop()
        #expect(await eventually { !node.isReady }, "ready without Redis")
        try redis.start()
        #expect(await eventually { admin.state == .connected })
        try await expectReadyOnlyAfterAPublish(node, admin)
    }

    /// Waits until the node is ready; the PUBLISH count read just after the node said so must not be zero.
    private func expectReadyOnlyAfterAPublish(_ node: ClusterNode, _ admin: RedisClient) async throws {
        let deadline = Date().addingTimeInterval(60)  // a bound for a condition, met in about a second alone
        while Date() < deadline {
            let ready = node.isReady
            // The admin connection may be reconnecting (it counts as a normal client too): ask again.
            guard let info = try? await admin.send("INFO", "commandstats").string else {
                try await Task.sleep(nanoseconds: 5_000_000)
                continue
            }
            let publishes =
                info.split(whereSeparator: \.isNewline)
                .first { $0.hasPrefix("cmdstat_publish:") }
                .flatMap { $0.split(separator: "=").dropFirst().first?.split(separator: ",").first }
                .flatMap { Int($0) } ?? 0
            if ready {
                #expect(publishes > 0, "ready before the node published again")
                return
            }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        Issue.record("the node did not become ready again")
    }
}

/// A `redis-server` child on one loopback port, stopped (SIGKILL, as a crash) and started again on the same port.
private final class RedisChild {
    static let binary = "/usr/bin/redis-server"
    let port: Int
    private var process: Process?

    init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    var url: String { "redis://127.0.0.1:\(port)" }

    func start() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: Self.binary)
        child.arguments = [
            "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning",
        ]
        child.standardOutput = FileHandle.nullDevice
        child.standardError = FileHandle.nullDevice
        try child.run()
        process = child
        for _ in 0..<1000 where child.isRunning {
            if accepts() { return }
            usleep(10_000)
        }
        throw CocoaError(.executableLoad)
    }

    func stop() {
        guard let child = process else { return }
        process = nil
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        child.waitUntilExit()
    }

    private func accepts() -> Bool {
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
}
