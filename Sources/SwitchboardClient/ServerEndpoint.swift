//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Where the server is: `ws://HOST:PORT/PATH` or `wss://HOST:PORT/PATH`.
public struct ServerEndpoint: Sendable, Equatable, CustomStringConvertible {
    /// A numeric IPv4 or IPv6 address, or a name resolved before each connection attempt.
    public var host: String
    /// The TCP port (default 80 for `ws`, 443 for `wss`).
    public var port: Int
    /// The request path of the upgrade (`/ws`).
    public var path: String
    /// Whether the connection uses TLS (`wss`).
    public var secure: Bool

    public init(host: String, port: Int, path: String = "/ws", secure: Bool = false) {
        self.host = host
        self.port = port
        self.path = path
        self.secure = secure
    }

    /// Parses `ws://host[:port][/path]` or `wss://...` (IPv6 literals in brackets); the path defaults to `/ws`.
    /// Returns nil for another scheme, a missing host or a bad port.
    public init?(url: String) {
        let secure: Bool
        var rest: Substring
        if url.hasPrefix("ws://") {
            secure = false
            rest = url.dropFirst(5)
        } else if url.hasPrefix("wss://") {
            secure = true
            rest = url.dropFirst(6)
        } else {
            return nil
        }
        var path = "/ws"
        if let slash = rest.firstIndex(of: "/") {
            path = String(rest[slash...])
            rest = rest[..<slash]
        }
        var host: Substring
        var portText: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                return nil
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
        }
        guard !host.isEmpty else { return nil }
        var port = secure ? 443 : 80
        if let portText {
            guard let p = Int(portText), (1...65535).contains(p) else { return nil }
            port = p
        }
        self.init(host: String(host), port: port, path: path, secure: secure)
    }

    /// `ws://host:port/path`.
    public var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return "\(secure ? "wss" : "ws")://\(h):\(port)\(path)"
    }

    /// The value of the `Host` header.
    var hostHeader: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return (secure && port == 443) || (!secure && port == 80) ? h : "\(h):\(port)"
    }
}
