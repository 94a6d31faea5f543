//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import SwitchboardServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Starts an in-process server on an ephemeral port with small limits.
func startServer(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) throws -> (HubServer, Int) {
    var configuration = ServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.loopCount = 2
    configuration.enableEcho = true
    configuration.maxFrameSize = 64 * 1024
    configuration.maxMessageSize = 128 * 1024
    configuration.shutdownGracePeriod = 3
    adjust(&configuration)
    var logger = Logger(label: "test")
    logger.logLevel = .warning
    let server = try HubServer(configuration: configuration, logger: logger)
    let port = try server.start()
    return (server, port)
}

func stop(_ server: HubServer) {
    let done = DispatchSemaphore(value: 0)
    server.shutdown { done.signal() }
    done.wait()
}

/// Opens an upgraded /echo connection.
func openEcho(port: Int, extraHeaders: String = "") throws -> TestSocket {
    let socket = try TestSocket(port: port)
    try socket.send(upgradeRequest(extraHeaders: extraHeaders))
    let head = try socket.readHead()
    #expect(head.hasPrefix("HTTP/1.1 101"), "\(head)")
    return socket
}

@Suite("Server foundation over real sockets", .serialized)
struct ServerFoundationTests {
    @Test func healthReadyMetrics() throws {
        let (server, port) = try startServer()
        defer { stop(server) }
        let socket = try TestSocket(port: port)
        try socket.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        let health = try socket.readResponse()
        #expect(health.status == 200)
        // Keep-alive: a second request on the same connection.
        try socket.send("GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try socket.readResponse().status == 200)
        try socket.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let metrics = try socket.readResponse()
        let text = String(decoding: metrics.body, as: UTF8.self)
        #expect(metrics.status == 200)
        #expect(text.contains("switchboard_connections"))
        #expect(text.contains("switchboard_handshake_failures_total"))
        #expect(text.contains("switchboard_loop_lag_seconds"))
    }

    @Test func httpErrorStatuses() throws {
        let (server, port) = try startServer()
        defer { stop(server) }
        func status(_ request: String) throws -> Int {
            let socket = try TestSocket(port: port)
            try socket.send(request)
            return try socket.readResponse().status
        }
        #expect(try status("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n") == 404)
        #expect(try status("POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n") == 405)
        #expect(try status("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n") == 413)
        #expect(try status("GET /echo HTTP/1.1\r\nHost: x\r\n\r\n") == 426)
        #expect(try status("GET /healthz HTTP/1.1\nHost: x\n\n") == 400)
        #expect(try status("GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n") == 505)
        #expect(try status("GET /\(String(repeating: "a", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n") == 414)
        #expect(try status("GET / HTTP/1.1\r\nHost: x\r\nX: \(String(repeating: "b", count: 17000))\r\n\r\n") == 431)
        var many = "GET / HTTP/1.1\r\nHost: x\r\n"
        for i in 0..<101 { many += "X-\(i): y\r\n" }
        #expect(try status(many + "\r\n") == 431)
        // Garbage does not disturb a healthy connection.
        let healthy = try TestSocket(port: port)
        try (try TestSocket(port: port)).send([0x16, 0x03, 0x01, 0xFF, 0xFF, 0x00, 0x0D, 0x0A, 0x0D, 0x0A])
        try healthy.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try healthy.readResponse().status == 200)
    }

    @Test func handshakeVariants() throws {
        let (server, port) = try startServer { $0.allowedOrigins = ["https://app.example"] }
        defer { stop(server) }
        func response(_ request: String) throws -> (status: Int, head: String, body: [UInt8]) {
            let socket = try TestSocket(port: port)
            try socket.send(request)
            return try socket.readResponse()
        }
        let badKey = try response(upgradeRequest(key: "short"))
        #expect(badKey.status == 400)
        let version = try response(upgradeRequest(version: "8"))
        #expect(version.status == 426)
        #expect(version.head.contains("Sec-WebSocket-Version: 13"))
        let missingUpgrade = try response(
            "GET /echo HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        #expect(missingUpgrade.status == 426)
        let origin = try response(upgradeRequest(extraHeaders: "Origin: https://evil.example\r\n"))
        #expect(origin.status == 403)
        let socket = try TestSocket(port: port)
        try socket.send(
            upgradeRequest(
                extraHeaders: "Origin: https://app.example\r\nSec-WebSocket-Protocol: chat, switchboard.v1\r\n"))
        let head = try socket.readHead()
        #expect(head.hasPrefix("HTTP/1.1 101"))
        #expect(head.contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo="))
        #expect(head.contains("Sec-WebSocket-Protocol: switchboard.v1"))
        // Metrics count the failures by reason.
        let metrics = try TestSocket(port: port)
        try metrics.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        let text = String(decoding: try metrics.readResponse().body, as: UTF8.self)
        #expect(text.contains("switchboard_handshake_failures_total{reason=\"bad_key\"} 1"))
        #expect(text.contains("switchboard_handshake_failures_total{reason=\"origin_not_allowed\"} 1"))
    }

    @Test func echoAndCloseCodes() throws {
        let (server, port) = try startServer()
        defer { stop(server) }
        let socket = try openEcho(port: port)
        try socket.send(clientFrame(opcode: 1, payload: Array("héllo".utf8)))
        let frame = try socket.readFrame()
        #expect(frame.opcode == 1 && frame.payload == Array("héllo".utf8))
        // Fragmented with an interleaved ping.
        try socket.send(clientFrame(opcode: 2, payload: [1, 2], fin: false))
        try socket.send(clientFrame(opcode: 9, payload: [7]))
        try socket.send(clientFrame(opcode: 0, payload: [3], fin: true))
        let pong = try socket.readFrame()
        #expect(pong.opcode == 10 && pong.payload == [7])
        let binary = try socket.readFrame()
        #expect(binary.opcode == 2 && binary.payload == [1, 2, 3])
        try socket.send(clientFrame(opcode: 8, payload: [0x03, 0xE8]))
        #expect(try socket.readCloseCode() == 1000)
        #expect(socket.readUntilClosed())

        let tooBig = try openEcho(port: port)
        try tooBig.send(clientFrame(opcode: 2, payload: [UInt8](repeating: 1, count: 65 * 1024)))
        #expect(try tooBig.readCloseCode() == 1009)

        let tooBigMessage = try openEcho(port: port)
        for opcode: UInt8 in [2, 0, 0] {
            try tooBigMessage.send(
                clientFrame(opcode: opcode, payload: [UInt8](repeating: 1, count: 60_000), fin: false))
        }
        #expect(try tooBigMessage.readCloseCode() == 1009)

        let badUTF8 = try openEcho(port: port)
        try badUTF8.send(clientFrame(opcode: 1, payload: [0x68, 0xC0, 0xAF]))
        #expect(try badUTF8.readCloseCode() == 1007)

        let unmasked = try openEcho(port: port)
        try unmasked.send([0x81, 0x02, 0x68, 0x69])
        #expect(try unmasked.readCloseCode() == 1002)

        let reserved = try openEcho(port: port)
        try reserved.send(clientFrame(opcode: 3, payload: []))
        #expect(try reserved.readCloseCode() == 1002)

        let badClose = try openEcho(port: port)
        try badClose.send(clientFrame(opcode: 8, payload: [0x03, 0xED]))  // 1005 may not be sent
        #expect(try badClose.readCloseCode() == 1002)
    }

    @Test func idleTimeoutClosesWith1001() throws {
        let (server, port) = try startServer {
            $0.pingInterval = 0.5
            $0.idleTimeout = 1.5
            $0.closeTimeout = 1
        }
        defer { stop(server) }
        let socket = try openEcho(port: port)
        // Pings arrive while silent; without any reply the idle timeout closes with 1001.
        var sawPing = false
        var code: UInt16? = nil
        while code == nil {
            let frame = try socket.readFrame()
            if frame.opcode == 9 { sawPing = true }
            if frame.opcode == 8 { code = UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) }
        }
        #expect(sawPing)
        #expect(code == 1001)
        #expect(socket.readUntilClosed())
    }

    @Test func slowReaderHitsBackpressureOthersUnaffected() throws {
        let (server, port) = try startServer {
            $0.maxOutboundBytes = 256 * 1024
            $0.maxFrameSize = 64 * 1024
        }
        defer { stop(server) }
        let slow = try openEcho(port: port)
        let fast = try openEcho(port: port)
        let payload = [UInt8](repeating: 0x41, count: 60_000)
        // The slow client keeps sending and never reads: its echoes pile up in the server.
        var closedBySever = false
        for _ in 0..<400 {
            do { try slow.send(clientFrame(opcode: 2, payload: payload)) } catch {
                closedBySever = true
                break
            }
            try fast.send(clientFrame(opcode: 1, payload: Array("ping".utf8)))
            #expect(try fast.readFrame().payload == Array("ping".utf8))
        }
        // The slow connection was cut: reading what reached it ends in our 1013 close frame (unsent echoes
        // were dropped so the close is not stuck behind them), then EOF.
        if !closedBySever {
            var raw: [UInt8] = []
            let deadline = Date().addingTimeInterval(20)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while Date() < deadline {
                let n = chunk.withUnsafeMutableBytes { recv(slow.fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                raw.append(contentsOf: chunk[0..<n])
            }
            let closeFrame: [UInt8] = [0x88, 0x0F, 0x03, 0xF5]
            let found = raw.count >= 4 && (0...(raw.count - 4)).contains { Array(raw[$0..<$0 + 4]) == closeFrame }
            #expect(found, "no 1013 close frame in \(raw.count) bytes")
        }
        let metrics = try TestSocket(port: port)
        try metrics.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(
            String(decoding: try metrics.readResponse().body, as: UTF8.self).contains(
                "switchboard_backpressure_closes_total 1"))
    }

    @Test func thousandConcurrentConnections() throws {
        let (server, port) = try startServer()
        defer { stop(server) }
        var sockets: [TestSocket] = []
        for _ in 0..<1000 {
            let socket = try TestSocket(port: port)
            try socket.send(upgradeRequest())
            sockets.append(socket)
        }
        for socket in sockets { #expect(try socket.readHead().hasPrefix("HTTP/1.1 101")) }
        for (i, socket) in sockets.enumerated() {
            try socket.send(clientFrame(opcode: 1, payload: Array("n\(i)".utf8)))
        }
        for (i, socket) in sockets.enumerated() { #expect(try socket.readFrame().payload == Array("n\(i)".utf8)) }
        #expect(server.connectionCount == 1000)
    }

    @Test func gracefulShutdownSends1001() throws {
        let (server, port) = try startServer()
        let a = try openEcho(port: port)
        let b = try openEcho(port: port)
        let done = DispatchSemaphore(value: 0)
        server.shutdown { done.signal() }
        for socket in [a, b] {
            #expect(try socket.readCloseCode() == 1001)
            try socket.send(clientFrame(opcode: 8, payload: [0x03, 0xE9]))
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        #expect(server.connectionCount == 0)
        #expect(throws: (any Error).self) { try TestSocket(port: port) }
    }

    @Test func pythonWebsocketsClientInterop() throws {
        let (server, port) = try startServer {
            $0.maxFrameSize = 1 << 22; $0.maxMessageSize = 1 << 22
        }
        defer { stop(server) }
        let script = repositoryRoot.appendingPathComponent("Tests/IntegrationTests/python/echo_interop.py").path
        for extra in [[], ["--compression"]] {
            let result = try runProcess("/usr/bin/env", ["python3", script, "ws://127.0.0.1:\(port)/echo"] + extra)
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("ok close 1000"))
        }
    }

    @Test func tlsWithSelfSignedCertificate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sb-tls-\(getpid())-\(Int.random(in: 0..<1_000_000))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("cert.pem").path
        let key = dir.appendingPathComponent("key.pem").path
        let made = try runProcess(
            "/usr/bin/env",
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1",
                "-keyout", key, "-out", cert,
            ])
        #expect(made.status == 0, "\(made.output)")
        let (server, port) = try startServer {
            $0.maxFrameSize = 1 << 22
            $0.maxMessageSize = 1 << 22
            $0.tlsCertificatePath = cert
            $0.tlsPrivateKeyPath = key
        }
        defer { stop(server) }
        let script = repositoryRoot.appendingPathComponent("Tests/IntegrationTests/python/echo_interop.py").path
        let result = try runProcess("/usr/bin/env", ["python3", script, "wss://127.0.0.1:\(port)/echo"])
        #expect(result.status == 0, "\(result.output)")
        // TLS 1.1 is refused; 1.2 works.
        let old = try runProcess(
            "/bin/sh", ["-c", "echo | openssl s_client -connect 127.0.0.1:\(port) -tls1_1 2>&1"], timeout: 20)
        #expect(old.output.contains("Cipher is (NONE)"), "\(old.output)")
        let tls12 = try runProcess(
            "/bin/sh",
            [
                "-c",
                "printf 'GET /healthz HTTP/1.1\\r\\nHost: x\\r\\nConnection: close\\r\\n\\r\\n'"
                    + " | openssl s_client -quiet -connect 127.0.0.1:\(port) -tls1_2 2>&1",
            ],
            timeout: 20)
        #expect(tls12.output.contains("HTTP/1.1 200 OK"), "\(tls12.output)")
    }
}
