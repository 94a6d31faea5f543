//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The proxies (load balancers) whose `X-Forwarded-For` the server believes, as addresses or CIDR blocks
/// (`--trusted-proxy 10.0.0.5,172.16.0.0/12,::1`). Behind HAProxy every connection comes from the proxy's
/// address, so the per-address limits (registrations, contact look-ups) would count all clients as one; with
/// the proxy trusted they count the address the proxy saw.
///
/// Which address is the client's: walking `X-Forwarded-For` from the right (the hop nearest to us), the first
/// address that is not a trusted proxy. Entries left of it were written by the client or by proxies we do not
/// know, so they are never believed. A connection not from a trusted proxy is its own address, whatever it
/// sends; a malformed entry stops the walk at the hop that wrote it.
///
/// An immutable value; thread-safe.
public struct TrustedProxies: Sendable, Equatable {
    /// An address block: the network's bytes (4 or 16) and the prefix length in bits.
    struct Block: Sendable, Equatable {
        let bytes: [UInt8]
        let prefix: Int

        func contains(_ address: [UInt8]) -> Bool {
            guard address.count == bytes.count else { return false }
            var bits = prefix
            var i = 0
            while bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if address[i] & mask != bytes[i] & mask { return false }
                bits -= 8
                i += 1
            }
            return true
        }
    }

    /// A value of `--trusted-proxy` that is not an address or a block.
    public struct InvalidEntry: Error, CustomStringConvertible {
        public let entry: String
        public var description: String { "not an IP address or CIDR block: \(entry)" }
    }

    let blocks: [Block]

    /// No proxy is trusted: every connection is its own address.
    public static let none = TrustedProxies(blocks: [])

    init(blocks: [Block]) { self.blocks = blocks }

    /// Parses addresses and CIDR blocks (`127.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`).
    public init(_ entries: [String]) throws(InvalidEntry) {
        var blocks: [Block] = []
        for raw in entries {
            let entry = raw.trimmingCharacters(in: .whitespaces)
            if entry.isEmpty { continue }
            let parts = entry.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
            guard let bytes = Self.parse(String(parts[0])) else { throw InvalidEntry(entry: entry) }
            var prefix = bytes.count * 8
            if parts.count == 2 {
                guard let p = Int(parts[1]), p >= 0, p <= bytes.count * 8 else { throw InvalidEntry(entry: entry) }
                prefix = p
            }
            blocks.append(Block(bytes: bytes, prefix: prefix))
        }
        self.blocks = blocks
    }

    public var isEmpty: Bool { blocks.isEmpty }

    /// Whether `address` (without a port; IPv6 with or without brackets) is a trusted proxy.
    public func contains(_ address: String) -> Bool {
        guard !blocks.isEmpty, let bytes = Self.parse(address) else { return false }
        return blocks.contains { $0.contains(bytes) }
    }

    /// The client's address: `peer` (the connection's address, without its port) unless `peer` is a trusted
    /// proxy, then the nearest untrusted address of the `X-Forwarded-For` values (each a comma-separated list;
    /// several header lines are one list in order).
    public func clientAddress(peer: String, forwardedFor: [String]) -> String {
        guard contains(peer), !forwardedFor.isEmpty else { return peer }
        let hops = forwardedFor.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        var client = peer
        for hop in hops.reversed() {
            let address = Self.stripPort(hop)
            guard let bytes = Self.parse(address) else { return client }
            client = Self.format(bytes) ?? address
            if !blocks.contains(where: { $0.contains(bytes) }) { return client }
        }
        return client
    }

    /// The address part of `1.2.3.4`, `1.2.3.4:5678`, `[::1]:5678`, `[::1]` or `::1`.
    public static func stripPort(_ hop: String) -> String {
        if hop.hasPrefix("["), let close = hop.firstIndex(of: "]") {
            return String(hop[hop.index(after: hop.startIndex)..<close])
        }
        if hop.filter({ $0 == ":" }).count == 1, let colon = hop.firstIndex(of: ":") {
            return String(hop[..<colon])
        }
        return hop
    }

    /// The 4 or 16 bytes of an IPv4 or IPv6 address (brackets allowed), or nil.
    static func parse(_ text: String) -> [UInt8]? {
        var address = text
        if address.hasPrefix("["), address.hasSuffix("]") { address = String(address.dropFirst().dropLast()) }
        guard !address.isEmpty, address.utf8.count <= 64, !address.contains("%") else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 {
            let bytes = withUnsafeBytes(of: &v6) { Array($0) }
            // An IPv4-mapped IPv6 address is the IPv4 address (a dual-stack listener reports them).
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return Array(bytes[12...])
            }
            return bytes
        }
        return nil
    }

    /// The canonical text of an address's bytes (so `::ffff:1.2.3.4` and `1.2.3.4` are one limit key).
    static func format(_ bytes: [UInt8]) -> String? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let ok: Bool = bytes.withUnsafeBytes { raw in
            bytes.count == 4
                ? inet_ntop(AF_INET, raw.baseAddress, &text, socklen_t(text.count)) != nil
                : inet_ntop(AF_INET6, raw.baseAddress, &text, socklen_t(text.count)) != nil
        }
        guard ok else { return nil }
        return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
