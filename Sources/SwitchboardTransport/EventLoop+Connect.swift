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

extension EventLoop {
    /// Connects to `host:port` (numeric IPv4/IPv6) without blocking; `completion` runs on this loop once
    /// the connection is open (after the TLS handshake when `tls` is set) or failed.
    public func connect(
        host: String,
        port: Int,
        tls: TLSContext? = nil,
        serverName: String? = nil,
        handler: any ConnectionHandler,
        completion: @escaping (Result<Connection, any Error>) -> Void
    ) {
        assertOnLoop()
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_NUMERICHOST
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &result) == 0, let info = result else {
            completion(.failure(IOError(errno: EINVAL, function: "getaddrinfo(\(host))")))
            return
        }
        defer { freeaddrinfo(result) }
        let fd = socket(
            info.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else {
            completion(.failure(IOError(errno: errno, function: "socket")))
            return
        }
        let rc = Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen)
        if rc != 0 && errno != EINPROGRESS {
            let e = errno
            Glibc.close(fd)
            completion(.failure(IOError(errno: e, function: "connect")))
            return
        }
        let connection = Connection(fd: fd, loop: self)
        if let tls {
            do { connection.tls = try TLSConnection(context: tls, serverName: serverName) } catch {
                Glibc.close(fd)
                connection.markClosedWithoutRegistration()
                completion(.failure(error))
                return
            }
        }
        connection.handler = handler
        connection.startConnect { result in
            if case .success(let c) = result { c.handler?.connectionDidOpen(c) }
            completion(result)
        }
        do {
            try register(connection, events: connection.interest)
        } catch {
            Glibc.close(fd)
            connection.markClosedWithoutRegistration()
            completion(.failure(error))
        }
    }
}

extension Connection {
    /// For a connection whose fd was closed before it was ever registered.
    func markClosedWithoutRegistration() { closeUnregistered() }
}
