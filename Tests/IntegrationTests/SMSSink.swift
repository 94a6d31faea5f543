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

/// A local SMS gateway for the tests: an HTTP/1.1 listener on 127.0.0.1 that records each request's head and
/// body and answers `status` (one request per connection, on its own thread).
final class SMSSink: @unchecked Sendable {
    // @unchecked Sendable: `requests` and `status` are guarded by `condition`; `fd` and `port` are immutable.
    struct Request {
        let head: String
        let body: String

        /// The body as a JSON object (the tests' template is JSON).
        var json: [String: String] {
            (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: String] ?? [:]
        }
    }

    let port: Int
    private let fd: Int32
    /// Signalled when the serving thread has ended.
    private let finished = DispatchSemaphore(value: 0)
    private let condition = NSCondition()
    private var requests: [Request] = []
    private var answer = 200

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else { throw TestSocketError.eof }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in serve() }
    }

    /// The gateway URL.
    var url: String { "http://127.0.0.1:\(port)/sms" }

    /// The status the sink answers from now on.
    var status: Int {
        get { condition.withLock { answer } }
        set { condition.withLock { answer = newValue } }
    }

    /// The requests received so far.
    var received: [Request] { condition.withLock { requests } }

    /// Waits until `count` requests have arrived (at most 10 s); all of them.
    func waitFor(_ count: Int) throws -> [Request] {
        let deadline = Date().addingTimeInterval(10)
        condition.lock()
        defer { condition.unlock() }
        while requests.count < count {
            guard condition.wait(until: deadline) else { throw TestSocketError.timeout }
        }
        return requests
    }

    /// The code of the next request to arrive after `count` were received.
    func code(after count: Int) throws -> String {
        try #require(try waitFor(count + 1)[count].json["code"])
    }

    /// Wakes the thread's `accept` (shutdown), waits for the thread to end, then closes the socket (closed first, its
    /// descriptor number could go to another test's socket while the thread was on its way back to `accept`: see
    /// `ScriptedPhotoServer.stop`).
    func close() {
        shutdown(fd, Int32(SHUT_RDWR))
        _ = finished.wait(timeout: .now() + 30)
        Glibc.close(fd)
    }

    private func serve() {
        defer { finished.signal() }
        while true {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            handle(client)
            Glibc.close(client)
        }
    }

    private func handle(_ client: Int32) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var expected: Int?
        while expected.map({ bytes.count < $0 }) ?? true {
            let n = read(client, &buffer, buffer.count)
            guard n > 0 else { return }
            bytes += buffer[0..<n]
            if expected == nil, let end = headEnd(bytes) {
                let head = String(decoding: bytes[0..<end], as: UTF8.self).lowercased()
                let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                    .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                expected = end + 4 + (length ?? 0)
            }
        }
        guard let end = headEnd(bytes) else { return }
        let request = Request(
            head: String(decoding: bytes[0..<end], as: UTF8.self),
            body: String(decoding: bytes[(end + 4)...], as: UTF8.self))
        let status = condition.withLock {
            requests.append(request)
            condition.broadcast()
            return answer
        }
        let reply = "HTTP/1.1 \(status) X\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        _ = reply.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count - 1) }
    }

    private func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4)
        where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }
}
