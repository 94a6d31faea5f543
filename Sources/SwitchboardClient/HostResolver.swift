//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a host name into a numeric address for `EventLoop.connect`, which takes numeric addresses only.
///
/// The one system call of this module besides the transport's: `getaddrinfo` blocks, so the client calls it
/// off its loop queue, and only for names (numeric addresses pass through without a lookup).
enum HostResolver {
    /// Whether `host` is a numeric IPv4 or IPv6 address.
    static func isNumeric(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }

    /// The first address of `host` (IPv4 preferred), or nil when it does not resolve. Blocks.
    static func resolve(_ host: String) -> String? {
        if isNumeric(host) { return host }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Glibc)
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
        hints.ai_socktype = SOCK_STREAM
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var candidates: [String] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            var buffer = [CChar](repeating: 0, count: Int(NI_MAXHOST))
            if getnameinfo(
                info.pointee.ai_addr, info.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST)
                == 0
            {
                let text = String(
                    decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if info.pointee.ai_family == AF_INET { return text }
                candidates.append(text)
            }
            cursor = info.pointee.ai_next
        }
        return candidates.first
    }
}
