//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Waits (bounded by `timeout` seconds) until `condition` holds; returns whether it did.
@discardableResult
func waitUntil(timeout: Double = 10, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline { return false }
        usleep(5_000)
    }
    return true
}

/// Errors of the blocking test client.
enum TestSocketError: Error {
    /// socket/connect failed.
    case connect(Int32)
    /// The peer closed before the expected bytes arrived.
    case eof
    /// No bytes within the receive timeout.
    case timeout
    /// send failed.
    case send(Int32)
}

/// A blocking TCP client with timeouts, for scripting raw HTTP and WebSocket bytes at the server.
final class TestSocket {
    let fd: Int32
    private(set) var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:port with a receive timeout.
    init(port: Int, timeout: Double = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSocketError.connect(errno) }
        var tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1_000_000))
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
        guard rc == 0 else {
            // Not closed here: a class whose initializer throws after every stored property is set still runs its
            // deinit, which closes `fd`. Closing it here too closed it twice, and the second close could hit a
            // descriptor another thread had just been given the same number for (a PostgreSQL connection of a
            // concurrent test failed with "could not get socket error status: Bad file descriptor").
            throw TestSocketError.connect(errno)
        }
    }

    /// Closes the socket, exactly once (also after a failed connect: see `init`).
    deinit { if fd >= 0 { Glibc.close(fd) } }

    /// Drops the connection as a vanished client would (the server sees EOF/reset).
    func shutdownBoth() { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }

    /// Sets the receive buffer size (small values make a slow reader).
    func setReceiveBuffer(_ bytes: Int32) {
        var v = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, socklen_t(MemoryLayout<Int32>.size))
    }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw TestSocketError.send(errno) }
            offset += n
        }
    }

    func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Reads more bytes into the buffer; throws on EOF or timeout.
    func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 { throw TestSocketError.eof }
        if n < 0 { throw (errno == EAGAIN || errno == EWOULDBLOCK) ? TestSocketError.timeout : TestSocketError.eof }
        buffer.append(contentsOf: chunk[0..<n])
    }

    /// Reads until the peer closes (or errors); returns true if it closed (EOF or reset).
    func readUntilClosed() -> Bool {
        while true {
            do { try fill() } catch TestSocketError.timeout { return false } catch { return true }
        }
    }

    /// Reads one HTTP response head (through CRLFCRLF) and returns it as text; leftover bytes stay buffered.
    func readHead() throws -> String {
        while true {
            if let r = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[0..<r], as: UTF8.self)
                buffer.removeFirst(r + 4)
                return head
            }
            try fill()
        }
    }

    /// Reads an HTTP response (head + Content-Length body).
    func readResponse() throws -> (status: Int, head: String, body: [UInt8]) {
        let head = try readHead()
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var length = 0
        for line in head.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        while buffer.count < length { try fill() }
        let body = Array(buffer[0..<length])
        buffer.removeFirst(length)
        return (status, head, body)
    }

    /// Reads one unmasked server frame: (fin, opcode, payload).
    func readFrame() throws -> (fin: Bool, opcode: UInt8, payload: [UInt8]) {
        while buffer.count < 2 { try fill() }
        var length = Int(buffer[1] & 0x7F)
        var header = 2
        if length == 126 {
            while buffer.count < 4 { try fill() }
            length = Int(buffer[2]) << 8 | Int(buffer[3])
            header = 4
        } else if length == 127 {
            while buffer.count < 10 { try fill() }
            length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        while buffer.count < header + length { try fill() }
        let frame = (buffer[0] & 0x80 != 0, buffer[0] & 0x0F, Array(buffer[header..<header + length]))
        buffer.removeFirst(header + length)
        return frame
    }

    /// Reads frames until a close frame; returns its code (nil if none in the payload).
    func readCloseCode() throws -> UInt16? {
        while true {
            let f = try readFrame()
            if f.opcode == 8 {
                return f.payload.count >= 2 ? UInt16(f.payload[0]) << 8 | UInt16(f.payload[1]) : nil
            }
        }
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for i in 0...(buffer.count - needle.count) where buffer[i] == needle[0] {
            if Array(buffer[i..<i + needle.count]) == needle { return i }
        }
        return nil
    }
}

/// Builds a masked client frame.
func clientFrame(opcode: UInt8, payload: [UInt8], fin: Bool = true, rsv: UInt8 = 0, mask: UInt32 = 0x1234_5678)
    -> [UInt8]
{
    var out: [UInt8] = [(fin ? 0x80 : 0) | rsv << 4 | opcode]
    if payload.count < 126 {
        out.append(0x80 | UInt8(payload.count))
    } else if payload.count <= 0xFFFF {
        out.append(0x80 | 126)
        out.append(UInt8(payload.count >> 8))
        out.append(UInt8(payload.count & 0xFF))
    } else {
        out.append(0x80 | 127)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((payload.count >> shift) & 0xFF)) }
    }
    let key = [UInt8(mask >> 24), UInt8(mask >> 16 & 0xFF), UInt8(mask >> 8 & 0xFF), UInt8(mask & 0xFF)]
    out.append(contentsOf: key)
    for (i, b) in payload.enumerated() { out.append(b ^ key[i & 3]) }
    return out
}

/// A valid upgrade request for `path`.
func upgradeRequest(
    path: String = "/echo",
    key: String = "dGhlIHNhbXBsZSBub25jZQ==",
    version: String = "13",
    extraHeaders: String = ""
) -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Key: \(key)\r\nSec-WebSocket-Version: \(version)\r\n\(extraHeaders)\r\n"
}

/// Runs a program and returns its exit status and combined output.
func runProcess(_ path: String, _ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// The repository root (for test fixtures and scripts).
let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url
}()

/// A self-signed certificate for `localhost` (`openssl req -x509`) in a new temporary folder; the caller removes
/// `folder` when done.
func selfSignedCertificate(prefix: String) throws -> (folder: URL, certificate: String, key: String) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "\(prefix)-\(getpid())-\(Int.random(in: 0..<1_000_000))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let certificate = folder.appendingPathComponent("cert.pem").path
    let key = folder.appendingPathComponent("key.pem").path
    let made = try runProcess(
        "/usr/bin/env",
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-days", "1",
            "-keyout", key, "-out", certificate,
        ])
    #expect(made.status == 0, "\(made.output)")
    return (folder, certificate, key)
}
