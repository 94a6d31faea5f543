//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// Opens N WebSocket connections (handshake completed) and holds them idle until SIGINT/SIGTERM or
// --hold seconds; prints `READY <n>` once they are open. Blocking sockets with a small thread-free
// design: connect + handshake in batches, then sleep. Source addresses rotate over 127.0.0.1..N so one
// process is not limited by the ephemeral ports of one address pair.
import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

@main
struct WSIdle: ParsableCommand {
    @Option var port: Int
    @Option var path = "/echo"
    @Option var count = 1000
    @Option(help: "Rotate the source address over 127.0.0.1 ... 127.0.0.N.") var sourceAddresses = 8
    @Option(help: "Seconds to hold after READY (0: until a signal).") var hold = 0.0

    func run() throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let request = Array(
            """
            GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \
            dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n
            """
            .utf8)
        var fds: [Int32] = []
        var failed = 0
        var pending: [Int32] = []
        func finish(_ batch: [Int32]) {
            for fd in batch {
                var buffer = [UInt8](repeating: 0, count: 512)
                let n = recv(fd, &buffer, buffer.count, 0)
                if n > 12, String(decoding: buffer[0..<12], as: UTF8.self) == "HTTP/1.1 101" {
                    fds.append(fd)
                } else {
                    failed += 1
                    close(fd)
                }
            }
        }
        for i in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else {
                failed += 1
                break
            }
            var tv = timeval(tv_sec: 10, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = (UInt32(127) << 24 | UInt32(1 + i % max(1, sourceAddresses))).bigEndian
            _ = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            var remote = sockaddr_in()
            remote.sin_family = sa_family_t(AF_INET)
            remote.sin_port = in_port_t(UInt16(port).bigEndian)
            remote.sin_addr.s_addr = inet_addr("127.0.0.1")
            let rc = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard rc == 0 else {
                failed += 1
                close(fd)
                continue
            }
            _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            pending.append(fd)
            if pending.count == 200 {
                finish(pending)
                pending = []
            }
        }
        finish(pending)
        print("READY \(fds.count) failed \(failed)")
        fflush(nil)
        if hold > 0 {
            Thread.sleep(forTimeInterval: hold)
        } else {
            signal(SIGTERM, { _ in Glibc.exit(0) })
            signal(SIGINT, { _ in Glibc.exit(0) })
            while true { pause() }
        }
        for fd in fds { close(fd) }
    }
}
