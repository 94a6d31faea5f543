//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// A synchronous protocol client for `setup` (one thread per client at a time): blocking socket, Switchboard's
// WebSocket codec in the client role, Foundation JSON. Every read times out (SO_RCVTIMEO).
import Foundation
import SwitchboardWebSocket

#if canImport(Glibc)
import Glibc
#endif

final class BlockingClient {
    let fd: Int32
    private var ws: WebSocketConnection?
    private var received: [[UInt8]] = []
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    private var nextId = 1
    private(set) var closed = false

    init(host: String, port: Int, timeout: Int = 30) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ClientError(code: "socket", message: String(cString: strerror(errno))) }
        var tv = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let e = errno
            close(fd)
            throw ClientError(code: "connect", message: String(cString: strerror(e)))
        }
        let key = WebSocketHandshake.makeKey()
        do {
            try writeAll(
                WebSocketHandshake.clientRequest(
                    host: "\(host):\(port)", path: "/ws", key: key, subprotocols: ["switchboard.v1"]))
            var parser = HTTPResponseHeadParser()
            while ws == nil {
                let n = read(fd, &buffer, buffer.count)
                guard n > 0 else { throw ClientError(code: "handshake", message: "connection closed or timed out") }
                let result = buffer.withUnsafeBytes { parser.feed(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
                switch result {
                case .needMoreData: continue
                case .error(let e): throw ClientError(code: "handshake", message: "\(e)")
                case .head(let head, let consumed):
                    guard
                        case .success(let outcome) = WebSocketHandshake.validateServerResponse(
                            head, key: key, offeredSubprotocols: ["switchboard.v1"], offeredDeflate: false)
                    else { throw ClientError(code: "handshake", message: "status \(head.status)") }
                    ws = WebSocketConnection(
                        role: .client, configuration: WebSocketConfiguration(), deflate: outcome.deflate, now: now())
                    if consumed < n { try feed(count: n, from: consumed) }
                }
            }
        } catch {
            close(fd)
            throw error
        }
    }

    deinit { close(fd) }

    private func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    private func writeAll(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else { throw ClientError(code: "write", message: String(cString: strerror(errno))) }
            offset += n
        }
    }

    private func feed(count: Int, from start: Int) throws {
        guard let ws else { return }
        var replies: [[UInt8]] = []
        buffer.withUnsafeBytes { raw in
            ws.receive(UnsafeRawBufferPointer(rebasing: raw[start..<count]), now: now()) { event in
                switch event {
                case .text(let bytes): received.append(bytes)
                case .binary: break
                case .send(let bytes): replies.append(bytes)
                case .closeReceived, .closed: closed = true
                }
            }
        }
        for r in replies { try writeAll(r) }
    }

    private func readMore() throws {
        guard !closed else { throw ClientError(code: "closed", message: "the server closed the connection") }
        let n = read(fd, &buffer, buffer.count)
        guard n > 0 else {
            throw ClientError(code: "read", message: n == 0 ? "connection closed" : "timed out or failed")
        }
        try feed(count: n, from: 0)
    }

    /// Sends a request without waiting; returns its id.
    @discardableResult
    func send(_ op: String, _ params: [String: Any] = [:]) throws -> Int {
        let id = nextId
        nextId += 1
        var body = params
        body["id"] = id
        body["op"] = op
        let data = try JSONSerialization.data(withJSONObject: body)
        guard let ws, let frame = ws.makeMessage(.text, payload: [UInt8](data)) else {
            throw ClientError(code: "closed", message: "not open")
        }
        try writeAll(frame)
        return id
    }

    /// Waits for the reply to `id` (events are dropped); returns `ok` or throws the error code.
    func reply(_ id: Int) throws -> [String: Any] {
        while true {
            while !received.isEmpty {
                let bytes = received.removeFirst()
                guard case .reply(let re) = Wire.classify(bytes) else {
                    if case .error(let re) = Wire.classify(bytes), re == id || re == nil {
                        let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
                        let error = object?["error"] as? [String: Any]
                        throw ClientError(
                            code: error?["code"] as? String ?? "?", message: error?["message"] as? String ?? "")
                    }
                    continue
                }
                guard re == id else { continue }
                let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
                return object?["ok"] as? [String: Any] ?? [:]
            }
            try readMore()
        }
    }

    func call(_ op: String, _ params: [String: Any] = [:]) throws -> [String: Any] {
        try reply(try send(op, params))
    }

    /// Sends every request first, then collects the replies in order (pipelined).
    func callMany(_ op: String, _ params: [[String: Any]]) throws -> [Result<[String: Any], ClientError>] {
        let ids = try params.map { try send(op, $0) }
        var results: [Int: Result<[String: Any], ClientError>] = [:]
        while results.count < ids.count {
            while !received.isEmpty {
                let bytes = received.removeFirst()
                switch Wire.classify(bytes) {
                case .event: continue
                case .reply(let re):
                    let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
                    results[re] = .success(object?["ok"] as? [String: Any] ?? [:])
                case .error(let re):
                    guard let re else { throw ClientError(code: "bad_request", message: "an error without id") }
                    let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
                    let error = object?["error"] as? [String: Any]
                    results[re] = .failure(
                        ClientError(code: error?["code"] as? String ?? "?", message: error?["message"] as? String ?? "")
                    )
                }
            }
            if results.count < ids.count { try readMore() }
        }
        return ids.map { results[$0]! }
    }
}
