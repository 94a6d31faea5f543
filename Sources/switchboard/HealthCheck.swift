//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// `switchboard healthcheck`: asks a running server's `/healthz` on 127.0.0.1 (for Docker's HEALTHCHECK).
struct HealthCheck: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Exit 0 if the local server answers /healthz with 200.")

    @Option(help: "Port of the local server. [env: SWITCHBOARD_PORT]")
    var port: Int = envValue("SWITCHBOARD_PORT", as: Int.self) ?? 8080

    @Option(help: "Path to ask.")
    var path: String = "/healthz"

    func run() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ExitCode(1) }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw ExitCode(1) }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
        else { throw ExitCode(1) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n >= 12, String(decoding: buffer[0..<12], as: UTF8.self) == "HTTP/1.1 200" else { throw ExitCode(1) }
    }
}
