//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Logging
public import SwitchboardTransport

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

/// When and how often a dropped connection is re-established: exponential backoff with jitter.
public struct ReconnectPolicy: Sendable, Equatable {
    /// Whether a connection that dropped is re-established automatically (only while there is a session or
    /// queued work; see `SwitchboardClient`).
    public var enabled: Bool = true
    /// The delay before the first retry, in seconds.
    public var initialDelay: Double = 0.25
    /// The delay never grows beyond this, in seconds.
    public var maximumDelay: Double = 30
    /// Each failed attempt multiplies the delay by this.
    public var multiplier: Double = 2
    /// The share of each delay that is random (0: none; 0.5: between 50% and 100% of the delay), so that
    /// many clients dropped at once do not all come back at the same moment.
    public var jitter: Double = 0.5
    /// Attempts in a row before the client gives up (`ConnectionState.closed(.reconnectFailed)`); nil: never.
    public var maximumAttempts: Int? = nil

    public init() {}

    /// No automatic reconnect.
    public static var disabled: ReconnectPolicy {
        var p = ReconnectPolicy()
        p.enabled = false
        return p
    }
}

/// The configuration of one `SwitchboardClient`. Durations are in seconds.
public struct ClientConfiguration: Sendable {
    /// The server.
    public var endpoint: ServerEndpoint
    /// Further servers of the same cluster (nodes sharing one database; see docs/cluster.md), for failover:
    /// each time a connection ends or an attempt fails, the next attempt goes to the next server in turn
    /// (`endpoint`, then these in order, then `endpoint` again), with the usual backoff, and resumes there.
    /// Empty (the default): every attempt goes to `endpoint`. Voice uploads and downloads go to the server
    /// of the current (or next) attempt.
    public var alternateEndpoints: [ServerEndpoint] = []
    /// The TLS context for `wss` (nil: a client context that verifies the peer with the system's CA store).
    /// Note that the transport verifies the certificate chain, not the host name.
    public var tls: TLSContext? = nil
    /// The name sent as SNI with `wss` (default: the endpoint's host when it is not a numeric address).
    public var serverName: String? = nil
    /// How long a request waits for its reply unless the call gives its own timeout (including time spent
    /// waiting for a connection).
    public var requestTimeout: Double = 15
    /// How long one connection attempt (TCP, TLS and the upgrade) may take.
    public var connectTimeout: Double = 10
    /// Reconnect with backoff after the connection drops.
    public var reconnect = ReconnectPolicy()
    /// Offer permessage-deflate.
    public var offerCompression: Bool = true
    /// Seconds without input after which the client pings the server.
    public var pingInterval: Double = 20
    /// Seconds without input after which the client considers the connection dead and reconnects (at least
    /// `pingInterval` + 2: both are checked once a second).
    public var idleTimeout: Double = 60
    /// Largest message accepted from the server, in bytes.
    public var maxMessageSize: Int = 4 << 20
    /// Requests that wait for a connection (or a re-authentication); beyond this, requests fail at once with
    /// `SwitchboardClientError.tooManyQueuedRequests`.
    public var maxQueuedRequests: Int = 1024
    /// Resume the message stream (`authenticate {resume: true}` and `sync {since}`) after a reconnect.
    public var resumeMessages: Bool = true
    /// After a `login`, `register` or a plain `authenticate`, read `conversations.list` once so that the
    /// message stream resumes from that moment on for every conversation (see docs/client.md). Without it,
    /// the first resume brings the whole history of conversations that had no message in the meantime.
    public var establishBaseline: Bool = true
    /// The library's logger (debug and info only).
    public var logger: Logger = Logger(label: "switchboard.client")

    public init(endpoint: ServerEndpoint) {
        self.endpoint = endpoint
    }

    /// `endpoint` followed by `alternateEndpoints`: the order in which connection attempts try them.
    public var endpoints: [ServerEndpoint] { [endpoint] + alternateEndpoints }

    /// - Returns: nil when `url` is not a `ws://` or `wss://` URL.
    public init?(url: String) {
        guard let endpoint = ServerEndpoint(url: url) else { return nil }
        self.init(endpoint: endpoint)
    }
}
