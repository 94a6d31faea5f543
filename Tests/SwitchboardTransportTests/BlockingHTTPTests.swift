//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import Testing

@testable import SwitchboardTransport

#if canImport(Glibc)
import Glibc
#endif

/// `BlockingHTTP.get` against a one-shot listener on a thread (real sockets).
struct BlockingHTTPTests {
    /// A listener on 127.0.0.1 that answers one connection with `response` after reading the request's head.
    private func serveOnce(_ response: String) -> (port: Int, done: DispatchSemaphore)? {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard bound else {
            close(listener)
            return nil
        }
        let port = Int(UInt16(bigEndian: address.sin_port))
        let done = DispatchSemaphore(value: 0)
        let bytes = Array(response.utf8)
        Thread.detachNewThread {
            defer {
                close(listener)
                done.signal()
            }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { close(fd) }
            var head: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1024)
            while !head.suffix(4).elementsEqual([13, 10, 13, 10]) && head.count < 8192 {
                let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return }
                head += buffer[..<n]
            }
            _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        return (port, done)
    }

    @Test func readsTheStatusAndTheBody() throws {
        let server = try #require(serveOnce("HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello\n"))
        let response = BlockingHTTP.get(address: "127.0.0.1", port: server.port, path: "/metrics", timeoutSeconds: 5)
        #expect(response?.status == 200)
        #expect(response.map { String(decoding: $0.body, as: UTF8.self) } == "hello\n")
        #expect(server.done.wait(timeout: .now() + 5) == .success)
    }

    @Test func anotherStatusAndAResponseThatIsNotHTTP() throws {
        let notFound = try #require(serveOnce("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n"))
        #expect(BlockingHTTP.get(address: "127.0.0.1", port: notFound.port, path: "/readyz")?.status == 503)
        #expect(notFound.done.wait(timeout: .now() + 5) == .success)
        let garbage = try #require(serveOnce("SSH-2.0-OpenSSH\r\n"))
        #expect(BlockingHTTP.get(address: "127.0.0.1", port: garbage.port, path: "/") == nil)
        #expect(garbage.done.wait(timeout: .now() + 5) == .success)
    }

    @Test func noServerOrABadAddressIsNil() throws {
        let server = try #require(serveOnce(""))
        let port = server.port
        // Take the one connection the listener serves, then nothing listens on the port.
        _ = BlockingHTTP.get(address: "127.0.0.1", port: port, path: "/")
        #expect(server.done.wait(timeout: .now() + 5) == .success)
        #expect(BlockingHTTP.get(address: "127.0.0.1", port: port, path: "/") == nil)
        #expect(BlockingHTTP.get(address: "not an address", port: port, path: "/") == nil)
    }
}
