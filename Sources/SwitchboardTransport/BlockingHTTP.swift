//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
import Glibc
#endif

/// One blocking HTTP/1.1 GET to an IPv4 address, for tools outside the loops (`switchboard healthcheck`, the load
/// tester's `/metrics` reads): never call it on a loop queue.
public enum BlockingHTTP {
    /// The status and body of `GET path` on `address:port`, or nil if it cannot be had within `timeoutSeconds` per
    /// send and receive. At most `maxBytes` of the response are read (the body is cut there).
    public static func get(address: String, port: Int, path: String, timeoutSeconds: Int = 5, maxBytes: Int = 16 << 20)
        -> (status: Int, body: [UInt8])?
    {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var socketAddress = sockaddr_in()
        socketAddress.sin_family = sa_family_t(AF_INET)
        socketAddress.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        guard inet_pton(AF_INET, address, &socketAddress.sin_addr) == 1 else { return nil }
        let connected = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: \(address):\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
        else {
            return nil
        }
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while response.count < maxBytes {
            let n = buffer.withUnsafeMutableBytes {
                recv(fd, $0.baseAddress, min($0.count, maxBytes - response.count), 0)
            }
            if n > 0 {
                response.append(contentsOf: buffer[..<n])
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        // "HTTP/1.1 200 ..." then the head's end.
        guard response.count >= 12, response.starts(with: Array("HTTP/1.".utf8)),
            let status = Int(String(decoding: response[9..<12], as: UTF8.self))
        else { return nil }
        let end: [UInt8] = [13, 10, 13, 10]
        var bodyStart = response.count
        if response.count >= 4 {
            for i in 0...(response.count - 4) where response[i..<(i + 4)].elementsEqual(end) {
                bodyStart = i + 4
                break
            }
        }
        return (status, Array(response[bodyStart...]))
    }
}
