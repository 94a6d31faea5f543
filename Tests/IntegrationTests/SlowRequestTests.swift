//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardServer
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Whether the socket has bytes (or EOF) to read within `milliseconds`.
private func readable(_ socket: TestSocket, milliseconds: Int32) -> Bool {
    var descriptor = pollfd(fd: socket.fd, events: Int16(POLLIN), revents: 0)
    return poll(&descriptor, 1, milliseconds) > 0
}

/// Sends `bytes` in pieces of `step` every `interval` ms until the server answers or closes; returns how many
/// bytes were sent by then, or nil if all of them went out without an answer.
private func dribble(_ socket: TestSocket, _ bytes: [UInt8], step: Int = 1, interval: Int32 = 200) -> Int? {
    var sent = 0
    while sent < bytes.count {
        if readable(socket, milliseconds: interval) { return sent }
        let end = min(bytes.count, sent + step)
        guard (try? socket.send(Array(bytes[sent..<end]))) != nil else { return sent }
        sent = end
    }
    return nil
}

/// The status of the response the server sent, or nil if it closed without one.
private func statusOrClose(_ socket: TestSocket) -> Int? {
    guard let response = try? socket.readResponse() else { return nil }
    return response.status
}

/// Issue 13, item 3: slow requests must not hold connections or upload slots.
@Suite("Slow requests", .serialized)
struct SlowRequestTests {
    /// A head sent one byte at a time gets 408 at the head's deadline: the bytes do not restart it. Also for a
    /// second request on a kept-alive connection.
    @Test func dribbledHeadTimesOut() throws {
        let (server, port) = try startServer { $0.handshakeTimeout = 1 }
        defer { stop(server) }
        // 80 bytes at 5 per second would take 16 s.
        let head = Array("GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: \(String(repeating: "a", count: 50))\r\n\r\n".utf8)
        #expect(head.count > 75)
        let first = try TestSocket(port: port, timeout: 5)
        let sent = dribble(first, head)
        #expect(sent != nil, "the whole head went out one byte at a time without a timeout")
        #expect(statusOrClose(first) == 408)

        let kept = try TestSocket(port: port, timeout: 5)
        try kept.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(try kept.readResponse().status == 200)
        let sentAgain = dribble(kept, head)
        #expect(sentAgain != nil, "a kept-alive connection's next head went out byte by byte without a timeout")
        #expect(statusOrClose(kept) == 408)
    }

    /// 40 slow voice bodies without a token are answered 401 before their bodies and hold no upload slot: an
    /// authenticated upload still succeeds.
    @Test func unauthenticatedSlowUploadsHoldNoSlots() throws {
        let (server, port, database) = try startProtocolServer { $0.voice.maxConcurrentUploads = 32 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        var strangers: [TestSocket] = []
        for _ in 0..<40 {
            let socket = try TestSocket(port: port, timeout: 10)
            try socket.send(
                "POST /voice HTTP/1.1\r\nHost: x\r\nContent-Type: audio/wav\r\nContent-Length: 100000\r\n\r\nRIFF")
            strangers.append(socket)
        }
        let wav = toneWAV(seconds: 1)
        let upload = try http(
            port, "POST", "/voice", token: ann.token, headers: ["Content-Type": "audio/wav"], body: wav)
        #expect(upload.status == 201, "\(upload.head)")
        for socket in strangers {
            #expect(statusOrClose(socket) == 401)
        }
        #expect(server.voiceUploadsInProgress == 0)
    }

    /// One user cannot take every upload slot.
    @Test func uploadsAreLimitedPerUser() throws {
        let (server, port, database) = try startProtocolServer {
            $0.voice.maxConcurrentUploads = 3
            $0.voice.maxUploadsPerUser = 2
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let bob = try makeUser(port, "bob")
        let wav = toneWAV(seconds: 1)
        let head =
            "POST /voice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ann.token)\r\n"
            + "Content-Length: \(wav.count)\r\n\r\n"
        var slow: [TestSocket] = []
        for _ in 0..<2 {
            let socket = try TestSocket(port: port, timeout: 30)
            try socket.send(Array(head.utf8) + Array(wav.prefix(10)))
            slow.append(socket)
        }
        let deadline = Date().addingTimeInterval(10)
        while server.voiceUploadsInProgress < 2 && Date() < deadline { usleep(10_000) }
        #expect(server.voiceUploadsInProgress == 2)
        let third = try http(
            port, "POST", "/voice", token: ann.token, headers: ["Content-Type": "audio/wav"], body: wav)
        #expect(third.status == 503)
        #expect(header(third.head, "Retry-After") != nil)
        let bobs = try http(port, "POST", "/voice", token: bob.token, headers: ["Content-Type": "audio/wav"], body: wav)
        #expect(bobs.status == 201, "\(bobs.head)")
        for socket in slow {
            try socket.send(Array(wav.dropFirst(10)))
            #expect(try socket.readResponse().status == 201)
        }
    }

    /// A client that sends `Expect: 100-continue` gets `100 Continue` once its token is accepted, and sends the
    /// body then.
    @Test func expectContinueAfterTheTokenIsChecked() throws {
        let (server, port, database) = try startProtocolServer { _ in }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let wav = toneWAV(seconds: 1)
        let socket = try TestSocket(port: port, timeout: 10)
        try socket.send(
            "POST /voice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ann.token)\r\n"
                + "Expect: 100-continue\r\nContent-Length: \(wav.count)\r\n\r\n"
        )
        let interim = try socket.readHead()
        #expect(interim.hasPrefix("HTTP/1.1 100"))
        try socket.send(wav)
        #expect(try socket.readResponse().status == 201)
    }

    /// A body slower than `--min-body-rate` is cut off with 408.
    @Test func slowBodyIsCutOff() throws {
        let (server, port, database) = try startProtocolServer {
            $0.handshakeTimeout = 1
            $0.minBodyRate = 1000
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let socket = try TestSocket(port: port, timeout: 10)
        // 50 bytes per second: 1,000 bytes would take 20 s.
        try socket.send(
            "POST /voice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ann.token)\r\nContent-Length: 1000\r\n\r\n")
        let sent = dribble(socket, [UInt8](repeating: 0x41, count: 1000), step: 10)
        #expect(sent != nil, "the whole slow body was accepted")
        #expect(statusOrClose(socket) == 408)
        let deadline = Date().addingTimeInterval(5)
        while server.voiceUploadsInProgress > 0 && Date() < deadline { usleep(10_000) }
        #expect(server.voiceUploadsInProgress == 0)
    }

    /// A body that takes longer than `--body-timeout` in total is cut off, however steadily it arrives.
    @Test func bodyPastItsTotalDeadlineIsCutOff() throws {
        let (server, port, database) = try startProtocolServer {
            $0.bodyTimeout = 2
            $0.minBodyRate = 0
        }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        let socket = try TestSocket(port: port, timeout: 10)
        try socket.send(
            "POST /voice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ann.token)\r\nContent-Length: 1000\r\n\r\n")
        let sent = dribble(socket, [UInt8](repeating: 0x41, count: 1000), step: 10)
        #expect(sent != nil, "the whole body was accepted past the deadline")
        #expect(statusOrClose(socket) == 408)
    }

    /// A declared oversize body gets 413 at once, before a byte of it is sent (also without a token); lengths
    /// too large for an integer get 400.
    @Test func declaredOversizeBodyIsRefusedBeforeTheBody() throws {
        let (server, port, database) = try startProtocolServer { $0.voice.maxUploadBytes = 100_000 }
        defer { stop(server); database.close() }
        let ann = try makeUser(port, "ann")
        for token in [ann.token, nil] {
            let socket = try TestSocket(port: port, timeout: 10)
            var head = "POST /voice HTTP/1.1\r\nHost: x\r\nContent-Length: 100001\r\n"
            if let token { head += "Authorization: Bearer \(token)\r\n" }
            try socket.send(head + "\r\n")
            let response = try socket.readResponse()
            #expect(response.status == 413)
            #expect((json(response.body)["error"] as? [String: Any])?["code"] as? String == "audio_too_large")
        }
        for length in ["999999999999999999", "9223372036854775807", "99999999999999999999999"] {
            let socket = try TestSocket(port: port, timeout: 10)
            try socket.send(
                "POST /voice HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(ann.token)\r\n"
                    + "Content-Length: \(length)\r\n\r\n"
            )
            let status = try socket.readResponse().status
            #expect(status == 413 || status == 400, "Content-Length \(length): \(status)")
        }
        for path in [
            "/voice/9223372036854775807", "/voice/-9223372036854775808", "/voice/99999999999999999999", "/voice/+1",
        ] {
            #expect(try http(port, "GET", path, token: ann.token).status == 404, "\(path)")
        }
        // The server is still up.
        #expect(try http(port, "GET", "/healthz").status == 200)
    }
}
