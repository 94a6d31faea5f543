//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The value of an unlabelled sample (`name value`) in Prometheus text, or 0.
private func sample(_ metrics: String, _ name: String) -> Double {
    for line in metrics.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Double(line.split(separator: " ").last ?? "") ?? 0
    }
    return 0
}

/// The largest value of a labelled family (`name{...} value`), or 0.
private func largest(_ metrics: String, _ name: String) -> Double {
    var value = 0.0
    for line in metrics.split(separator: "\n") where line.hasPrefix(name + "{") {
        value = max(value, Double(line.split(separator: " ").last ?? "") ?? 0)
    }
    return value
}

/// The server's `/metrics` text.
private func scrape(_ port: Int) throws -> String {
    String(decoding: try http(port, "GET", "/metrics").body, as: UTF8.self)
}

/// This process's resident set size, bytes (the server runs in it).
private func residentBytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

/// A flag set by the flooding thread.
private final class Done: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Issue 14, item 4: admission control.
@Suite("Admission control", .serialized)
struct AdmissionTests {
    /// A client pipelining 10,000 requests without reading its replies is paused (the server stops reading it:
    /// never more than N of its requests in flight), another client's pings are all answered meanwhile with a low
    /// loop lag, memory stays bounded, and closing the flooder cancels its work at once.
    @Test func aFloodingClientIsPausedAndOthersAreServed() throws {
        let limit = 16
        let (server, port, database) = try startProtocolServer {
            $0.maxRequestsInFlight = limit
            $0.databasePoolSize = 1
        }
        defer { stop(server); database.close() }
        let flooder = try makeUser(port, "Flood")
        let bob = try makeUser(port, "Bob")
        // Baseline: pings answered before the flood.
        for _ in 0..<20 { #expect(ok(try bob.client.call("ping")) != nil) }
        let rssBefore = residentBytes()

        // 10,000 contact look-ups (database work) in frames, sent from a thread: the send blocks once the server
        // stops reading and the socket buffers are full.
        let phones = (0..<100).map { "+1555\(String(format: "%07d", $0))" }
        var frames: [UInt8] = []
        for n in 0..<10_000 {
            let body: [String: Any] = ["id": 1_000_000 + n, "op": "contacts.match", "phones": phones]
            frames += clientFrame(opcode: 1, payload: Array(try JSONSerialization.data(withJSONObject: body)))
        }
        let socket = Unchecked(flooder.client.socket)
        let sent = Done()
        let payload = Unchecked(frames)
        let sender = Thread {
            _ = try? socket.value.send(payload.value)
            sent.set()
        }
        sender.start()

        // The server stops reading the flooder: seen paused, and its requests in flight never exceed the limit.
        var sawPaused = false
        var mostInFlight = 0.0
        for _ in 0..<500 where !sawPaused {
            let metrics = try scrape(port)
            mostInFlight = max(mostInFlight, sample(metrics, "switchboard_requests_in_flight"))
            sawPaused = sample(metrics, "switchboard_connections_read_paused") >= 1
            if !sawPaused { usleep(10_000) }
        }
        #expect(sawPaused, "the flooder's connection was never paused")
        #expect(!sent.isSet, "the server read all 10,000 requests: the flood was not held back")

        // Another client is served all along: every ping answered, the loops stay responsive.
        for _ in 0..<50 {
            #expect(ok(try bob.client.call("ping")) != nil)
            let metrics = try scrape(port)
            mostInFlight = max(mostInFlight, sample(metrics, "switchboard_requests_in_flight"))
            #expect(largest(metrics, "switchboard_loop_lag_seconds") < 1.0)
        }
        // The flooder's requests beyond the limit stay in the socket buffers (plus at most one read's frames
        // held): at most `limit` in flight (one more: a ping or this scrape's own request on another loop).
        #expect(mostInFlight <= Double(limit + 1))
        // Memory: far below what buffering 10,000 requests and their replies would take, generously.
        #expect(residentBytes() - rssBefore < 256 << 20)

        // Closing the flooder (a reset: it never read its replies) cancels its work: no request of it stays in
        // flight, its running tasks are counted as cancelled.
        let fd = flooder.client.socket.fd
        flooder.client.socket.shutdownBoth()  // the blocked send fails
        for _ in 0..<1000 where !sent.isSet { usleep(10_000) }
        #expect(sent.isSet)
        // Closed with unread replies and no linger: a reset. The descriptor number is reused for a spare socket,
        // closed again when the test's client goes.
        var noLinger = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &noLinger, socklen_t(MemoryLayout<linger>.size))
        let spare = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        dup2(spare, fd)
        Glibc.close(spare)
        var drained = false
        var cancelled = 0.0
        for _ in 0..<1000 where !drained {
            let metrics = try scrape(port)
            cancelled = sample(metrics, "switchboard_requests_cancelled_total")
            drained =
                sample(metrics, "switchboard_requests_in_flight") == 0
                && sample(metrics, "switchboard_connections_read_paused") == 0
            if !drained { usleep(10_000) }
        }
        #expect(drained, "the flooder's requests stayed in flight after it closed")
        #expect(cancelled >= 1, "no request task was cancelled")
        #expect(ok(try bob.client.call("ping")) != nil)
    }

    /// Issue 14, item 5: per-op requests, errors by code and durations; connections refused over
    /// `maxConnections` are counted.
    @Test func perOpMetricsAndRejectedConnections() throws {
        let (server, port, database) = try startProtocolServer { $0.maxConnections = 3 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "Ann")
        for _ in 0..<3 { #expect(ok(try ann.client.call("ping")) != nil) }
        #expect(errorCode(try ann.client.call("no.such.op")) == "unknown_op")
        #expect(errorCode(try ann.client.call("profile.get", ["user_id": "x"])) == "bad_request")
        // Errors answered by an engine (a conversation's writer, the call queue) through the outbox count too.
        let sendCode = try #require(
            errorCode(try ann.client.call("messages.send", ["conversation_id": 987_654, "text": "hi"])))
        let acceptCode = try #require(
            errorCode(try ann.client.call("call.accept", ["call_id": "no-such-call", "answer": "v=0"])))
        // Ann and two more fill the server; the fourth is closed at once.
        let extra = try (0..<2).map { _ in try TestSocket(port: port) }
        for _ in 0..<500 where server.connectionCount < 3 { usleep(10_000) }
        let refused = try TestSocket(port: port)
        #expect(refused.readUntilClosed())
        withExtendedLifetime(extra) {}
        for socket in extra { socket.shutdownBoth() }
        for _ in 0..<500 where server.connectionCount > 1 { usleep(10_000) }
        let metrics = try scrape(port)
        func value(_ line: String) -> Double {
            metrics.split(separator: "\n").first { $0.hasPrefix(line + " ") }.flatMap {
                Double($0.split(separator: " ").last ?? "")
            } ?? 0
        }
        #expect(value(#"switchboard_requests_total{op="ping"}"#) >= 3)
        #expect(value(#"switchboard_requests_total{op="register"}"#) >= 1)
        #expect(value(#"switchboard_requests_total{op="unknown"}"#) >= 1)
        #expect(value(#"switchboard_request_errors_total{op="unknown",code="unknown_op"}"#) >= 1)
        #expect(value(#"switchboard_request_errors_total{op="profile.get",code="bad_request"}"#) >= 1)
        #expect(value(#"switchboard_request_duration_seconds_count{op="ping"}"#) >= 3)
        #expect(value(#"switchboard_request_errors_total{op="messages.send",code="\#(sendCode)"}"#) >= 1)
        #expect(value(#"switchboard_request_errors_total{op="call.accept",code="\#(acceptCode)"}"#) >= 1)
        #expect(sample(metrics, "switchboard_connections_rejected_total") >= 1)
    }
}
