//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import COpenSSL
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A point on the monotonic clock by which an I/O step must be done.
typealias RedisDeadline = ContinuousClock.Instant

func redisOpenSSLError() -> String {
    var parts: [String] = []
    for _ in 0..<16 {
        let code = ERR_get_error()
        if code == 0 { break }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        parts.append(String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    ERR_clear_error()
    return parts.isEmpty ? "unknown TLS error" : parts.joined(separator: "; ")
}

private func errnoText(_ code: Int32) -> String { String(cString: strerror(code)) }

/// One connection to Redis: a nonblocking socket driven with blocking calls that wait in `poll()` up to a deadline,
/// optionally TLS (OpenSSL on the socket, `SSL_set_fd`: OpenSSL reads and writes the fd but never closes it), and a
/// reply reader.
///
/// Not thread-safe: confined to its owner's queue or thread. The fd is closed exactly once, by `close()` or deinit.
final class RedisConnection {
    /// The socket; -1 once closed. Protected by: the owner's confinement.
    private(set) var fd: Int32
    /// The TLS session, nil for plain TCP. Protected by: the owner's confinement.
    private var ssl: OpaquePointer?
    /// Parses the replies. Protected by: the owner's confinement.
    let reader: RedisReplyReader
    /// A receive buffer reused for every read. Protected by: the owner's confinement.
    private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

    private init(fd: Int32, configuration: RedisConfiguration) {
        self.fd = fd
        self.reader = RedisReplyReader(
            maxElements: configuration.maxReplyElements, maxReplyBytes: configuration.maxReplyBytes)
    }

    deinit { close() }

    /// Closes the socket (and frees the TLS session); idempotent.
    func close() {
        if let ssl {
            SSL_free(ssl)
            self.ssl = nil
        }
        if fd >= 0 {
            _ = Glibc.close(fd)
            fd = -1
        }
    }

    // MARK: Connect

    /// Connects, completes the TLS handshake, then sends AUTH and SELECT as configured, all before `deadline`.
    /// - Throws: `RedisError.connectFailed` (AUTH's error reply included: it never contains the password).
    static func open(
        _ configuration: RedisConfiguration, tls: RedisTLSContext?, deadline: RedisDeadline
    ) throws(RedisError) -> RedisConnection {
        let connection = try tcpConnect(configuration, deadline: deadline)
        do throws(RedisError) {
            if let tls { try connection.startTLS(tls, configuration: configuration, deadline: deadline) }
            var setup: [RedisCommand] = []
            if let password = configuration.password {
                if let user = configuration.username {
                    setup.append(RedisCommand("AUTH", user, password))
                } else {
                    setup.append(RedisCommand("AUTH", password))
                }
            }
            if configuration.database != 0 { setup.append(RedisCommand("SELECT", configuration.database)) }
            if !setup.isEmpty {
                var bytes: [UInt8] = []
                for command in setup { command.encode(into: &bytes) }
                try connection.write(bytes, deadline: deadline)
                for command in setup {
                    let reply = try connection.readReply(deadline: deadline)
                    if case .error(let message) = reply {
                        let name = String(decoding: command.arguments[0], as: UTF8.self)
                        throw RedisError.connectFailed("\(name): \(message)")
                    }
                }
            }
        } catch {
            connection.close()
            switch error {
            case .connectFailed: throw error
            case .timeout: throw .connectFailed("timed out")
            case .connectionLost(let why), .protocolError(let why): throw .connectFailed(why)
            default: throw .connectFailed(error.description)
            }
        }
        return connection
    }

    private static func tcpConnect(
        _ configuration: RedisConfiguration, deadline: RedisDeadline
    ) throws(RedisError) -> RedisConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(configuration.host, String(configuration.port), &hints, &list)
        guard rc == 0, let list else {
            throw .connectFailed("cannot resolve \(configuration.host): \(String(cString: gai_strerror(rc)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address for \(configuration.host)"
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else {
                lastError = "socket: \(errnoText(errno))"
                continue
            }
            let connection = RedisConnection(fd: fd, configuration: configuration)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return connection }
            guard errno == EINPROGRESS else {
                lastError = "connect to \(configuration.host):\(configuration.port): \(errnoText(errno))"
                connection.close()
                continue
            }
            do {
                try connection.wait(for: Int16(POLLOUT), deadline: deadline)
            } catch {
                connection.close()
                throw .connectFailed("connect to \(configuration.host):\(configuration.port) timed out")
            }
            var soError: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &length)
            if soError == 0 { return connection }
            lastError = "connect to \(configuration.host):\(configuration.port): \(errnoText(soError))"
            connection.close()
        }
        throw .connectFailed(lastError)
    }

    private func startTLS(
        _ tls: RedisTLSContext, configuration: RedisConfiguration, deadline: RedisDeadline
    ) throws(RedisError) {
        guard let ssl = SSL_new(tls.context) else { throw .connectFailed("TLS: \(redisOpenSSLError())") }
        self.ssl = ssl
        guard SSL_set_fd(ssl, fd) == 1 else { throw .connectFailed("TLS: \(redisOpenSSLError())") }
        let isAddress = Self.isIPAddress(configuration.host)
        let name = configuration.serverName ?? (isAddress ? nil : configuration.host)
        if let name {
            _ = COpenSSL_SSL_set_tlsext_host_name(ssl, name)
            if configuration.verifyCertificate { _ = SSL_set1_host(ssl, name) }
        } else if configuration.verifyCertificate {
            _ = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), configuration.host)
        }
        SSL_set_connect_state(ssl)
        for _ in 0..<10_000 {
            let rc = SSL_do_handshake(ssl)
            if rc == 1 { return }
            let err = SSL_get_error(ssl, rc)
            if err == SSL_ERROR_WANT_READ {
                try wait(for: Int16(POLLIN), deadline: deadline)
            } else if err == SSL_ERROR_WANT_WRITE {
                try wait(for: Int16(POLLOUT), deadline: deadline)
            } else {
                let verify = SSL_get_verify_result(ssl)
                if verify != X509_V_OK {
                    throw .connectFailed(
                        "TLS certificate: \(String(cString: X509_verify_cert_error_string(verify)))")
                }
                throw .connectFailed("TLS handshake: \(redisOpenSSLError())")
            }
        }
        throw .connectFailed("TLS handshake did not finish")
    }

    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    // MARK: I/O

    /// Waits in `poll()` until the socket is ready for `events` (or hung up, which the next read or write reports).
    /// - Throws: `RedisError.timeout` at the deadline.
    func wait(for events: Int16, deadline: RedisDeadline) throws(RedisError) {
        while true {
            let remaining = deadline - .now
            guard remaining > .zero else { throw .timeout }
            let ms = Int32(
                clamping: remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000
                    + 1)
            var pfd = pollfd(fd: fd, events: events, revents: 0)
            let rc = poll(&pfd, 1, ms)
            if rc > 0 { return }
            if rc < 0, errno != EINTR { throw .connectionLost("poll: \(errnoText(errno))") }
        }
    }

    /// Writes all of `bytes` before `deadline`.
    /// - Throws: `RedisError.timeout`, or `.connectionLost` on a socket or TLS error.
    func write(_ bytes: [UInt8], deadline: RedisDeadline) throws(RedisError) {
        try bytes.withUnsafeBytes { (raw) -> Result<Void, RedisError> in
            do throws(RedisError) {
                try write(raw, deadline: deadline)
                return .success(())
            } catch {
                return .failure(error)
            }
        }.get()
    }

    private func write(_ raw: UnsafeRawBufferPointer, deadline: RedisDeadline) throws(RedisError) {
        var offset = 0
        while offset < raw.count {
            let rest = raw.count - offset
            let pointer = raw.baseAddress! + offset
            if let ssl {
                let n = SSL_write(ssl, pointer, Int32(clamping: rest))
                if n > 0 {
                    offset += Int(n)
                    continue
                }
                switch SSL_get_error(ssl, n) {
                case SSL_ERROR_WANT_WRITE: try wait(for: Int16(POLLOUT), deadline: deadline)
                case SSL_ERROR_WANT_READ: try wait(for: Int16(POLLIN), deadline: deadline)
                default: throw .connectionLost("TLS write: \(redisOpenSSLError())")
                }
            } else {
                let n = send(fd, pointer, rest, Int32(MSG_NOSIGNAL))
                if n > 0 {
                    offset += n
                    continue
                }
                if n < 0, errno == EINTR { continue }
                if n < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                    try wait(for: Int16(POLLOUT), deadline: deadline)
                    continue
                }
                throw .connectionLost("send: \(errnoText(errno))")
            }
        }
    }

    /// The result of one nonblocking read.
    enum ReadResult {
        /// Bytes were fed to the reader.
        case progress
        /// Nothing to read now; wait for these poll events.
        case wouldBlock(Int16)
    }

    /// Reads once without blocking and feeds what arrived to the reader.
    /// - Throws: `RedisError.connectionLost` on EOF or an error; `.protocolError` from the reader.
    func readAvailable() throws(RedisError) -> ReadResult {
        while true {
            let n: Int
            if let ssl {
                let r = buffer.withUnsafeMutableBytes { SSL_read(ssl, $0.baseAddress, Int32($0.count)) }
                if r <= 0 {
                    switch SSL_get_error(ssl, r) {
                    case SSL_ERROR_WANT_READ: return .wouldBlock(Int16(POLLIN))
                    case SSL_ERROR_WANT_WRITE: return .wouldBlock(Int16(POLLOUT))
                    case SSL_ERROR_ZERO_RETURN: throw .connectionLost("closed by the server")
                    case SSL_ERROR_SYSCALL:
                        let code = errno
                        ERR_clear_error()
                        throw .connectionLost(
                            r == 0 || code == 0 ? "closed by the server" : "TLS read: \(errnoText(code))")
                    default: throw .connectionLost("TLS read: \(redisOpenSSLError())")
                    }
                }
                n = Int(r)
            } else {
                let r = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if r == 0 { throw .connectionLost("closed by the server") }
                if r < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN || errno == EWOULDBLOCK { return .wouldBlock(Int16(POLLIN)) }
                    throw .connectionLost("recv: \(errnoText(errno))")
                }
                n = r
            }
            try buffer.withUnsafeBytes { (raw) -> Result<Void, RedisError> in
                do throws(RedisError) {
                    try reader.feed(UnsafeRawBufferPointer(rebasing: raw[0..<n]))
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }.get()
            return .progress
        }
    }

    /// The next reply, waiting for it until `deadline`.
    /// - Throws: `RedisError.timeout`, `.connectionLost`, `.protocolError`.
    func readReply(deadline: RedisDeadline) throws(RedisError) -> RedisValue {
        while true {
            if let value = try reader.next() { return value }
            switch try readAvailable() {
            case .progress: continue
            case .wouldBlock(let events): try wait(for: events, deadline: deadline)
            }
        }
    }
}

/// SHA-1 of `bytes` in lowercase hex (OpenSSL).
func redisSHA1Hex(_ bytes: [UInt8]) -> String {
    var digest = [UInt8](repeating: 0, count: Int(SHA_DIGEST_LENGTH))
    _ = bytes.withUnsafeBytes { SHA1($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &digest) }
    let hex: [Character] = Array("0123456789abcdef")
    return String(digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 15)]] })
}
