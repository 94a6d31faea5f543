//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import Logging
public import SwitchboardTransport

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
