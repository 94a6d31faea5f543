//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// Where Redis is and how to talk to it. Build it from a URL, then adjust the options.
///
/// `description` and `debugDescription` never show the password.
public struct RedisConfiguration: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The host name or IP address (IPv6 without brackets).
    public var host: String
    /// The TCP port; default 6379.
    public var port: Int
    /// The ACL user for `AUTH user password`; nil means `AUTH password` (the default user).
    public var username: String?
    /// The password; nil means no AUTH. Never logged or described.
    public var password: String?
    /// The database selected with `SELECT` on every (re)connect; 0 sends no SELECT.
    public var database: Int
    /// TLS (`rediss://`), with OpenSSL; TLS 1.2 and 1.3 only.
    public var tls: Bool
    /// The PEM file of the certificate authorities to trust; nil uses the system's.
    public var caFile: String?
    /// The name sent in SNI and checked against the certificate; default: `host` when it is a name. When `host`
    /// is an IP address and no name is given, the certificate must carry that IP address.
    public var serverName: String?
    /// Verify the server's certificate chain and name (default true; false is for tests only).
    public var verifyCertificate: Bool
    /// The longest a connect may take: TCP connect, TLS handshake, AUTH and SELECT together. Default 2 s.
    public var connectTimeout: Duration
    /// The longest wait for the next reply once a command was written. A timeout closes the connection (the
    /// stream is out of step) and reconnects. Default 2 s.
    public var commandTimeout: Duration
    /// The first reconnect delay; it doubles per failed attempt up to `reconnectMaxDelay`. Default 100 ms.
    public var reconnectMinDelay: Duration
    /// The largest reconnect delay. Default 5 s.
    public var reconnectMaxDelay: Duration
    /// The share of each delay drawn at random (0 to 1): a delay d becomes d * (1 - jitter * r), r in [0, 1),
    /// so nodes that lost Redis together do not reconnect in step. Default 0.5.
    public var reconnectJitter: Double
    /// The most commands accepted and not yet answered (queued plus in flight) per client; more fail at once with
    /// `RedisError.overloaded`. Default 10,000.
    public var maxPendingCommands: Int
    /// The most commands written in one batch (one write); the rest wait for the next. Default 1,024.
    public var maxBatchCommands: Int
    /// The largest array in a reply; larger is a protocol error (hiredis would allocate it at once). Default 1 Mi.
    public var maxReplyElements: Int
    /// The most bytes one reply may hold before it completes; more is a protocol error. Default 64 MiB.
    public var maxReplyBytes: Int
    /// How often an idle connection pings Redis, so a dead server or a broken path is noticed (and reported to
    /// the state handler) without waiting for the next command: a client sends `PING` when it has nothing pending,
    /// a subscriber when nothing arrived for this long. Default 5 s.
    public var healthCheckInterval: Duration

    /// A configuration for `host:port` with the defaults above.
    public init(host: String = "127.0.0.1", port: Int = 6379) {
        self.host = host
        self.port = port
        self.username = nil
        self.password = nil
        self.database = 0
        self.tls = false
        self.caFile = nil
        self.serverName = nil
        self.verifyCertificate = true
        self.connectTimeout = .seconds(2)
        self.commandTimeout = .seconds(2)
        self.reconnectMinDelay = .milliseconds(100)
        self.reconnectMaxDelay = .seconds(5)
        self.reconnectJitter = 0.5
        self.maxPendingCommands = 10_000
        self.maxBatchCommands = 1_024
        self.maxReplyElements = 1 << 20
        self.maxReplyBytes = 64 << 20
        self.healthCheckInterval = .seconds(5)
    }

    /// A configuration from `redis://[[user]:password@]host[:port][/db]` or `rediss://...` (TLS).
    ///
    /// User and password are percent-decoded; `redis://:secret@host` authenticates the default user.
    /// - Throws: `RedisError.invalidConfiguration` (the message never contains the password).
    public init(url: String) throws(RedisError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased() else {
            throw .invalidConfiguration("not a URL (expected redis://host:port or rediss://host:port)")
        }
        guard scheme == "redis" || scheme == "rediss" else {
            throw .invalidConfiguration("unknown scheme \(scheme) (expected redis or rediss)")
        }
        guard var host = components.host, !host.isEmpty else { throw .invalidConfiguration("the URL has no host") }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 6379
        guard (1...65535).contains(port) else { throw .invalidConfiguration("port \(port) out of range") }
        self.init(host: host, port: port)
        tls = scheme == "rediss"
        let user = components.user.flatMap { $0.isEmpty ? nil : $0 }
        let password = components.password.flatMap { $0.isEmpty ? nil : $0 }
        if user != nil, password == nil {
            throw .invalidConfiguration("a user without a password (write redis://user:password@host)")
        }
        self.username = user
        self.password = password
        let path = components.path.split(separator: "/", omittingEmptySubsequences: true)
        if path.count > 1 { throw .invalidConfiguration("the path must be a database number") }
        if let first = path.first {
            guard let db = Int(first), db >= 0 else { throw .invalidConfiguration("database \(first) is not a number") }
            database = db
        }
        if let query = components.queryItems, !query.isEmpty {
            throw .invalidConfiguration("URL options are not supported; set them on RedisConfiguration")
        }
    }

    /// Checks the options; called by the client and the subscriber.
    /// - Throws: `RedisError.invalidConfiguration` naming the first bad option.
    public func validate() throws(RedisError) {
        func positive(_ d: Duration, _ name: String) throws(RedisError) {
            guard d > .zero else { throw .invalidConfiguration("\(name) must be positive") }
        }
        try positive(connectTimeout, "connectTimeout")
        try positive(commandTimeout, "commandTimeout")
        try positive(reconnectMinDelay, "reconnectMinDelay")
        try positive(healthCheckInterval, "healthCheckInterval")
        guard reconnectMaxDelay >= reconnectMinDelay else {
            throw .invalidConfiguration("reconnectMaxDelay must be at least reconnectMinDelay")
        }
        guard (0...1).contains(reconnectJitter) else { throw .invalidConfiguration("reconnectJitter must be in 0...1") }
        guard maxPendingCommands > 0, maxBatchCommands > 0, maxReplyElements > 0, maxReplyBytes > 0 else {
            throw .invalidConfiguration("limits must be positive")
        }
        guard (1...65535).contains(port), !host.isEmpty else { throw .invalidConfiguration("bad host or port") }
        guard database >= 0 else { throw .invalidConfiguration("database must be 0 or more") }
        if username != nil, password == nil { throw .invalidConfiguration("a user without a password") }
    }

    /// The URL without the password (`redis://user:***@host:port/db`).
    public var description: String {
        var s = tls ? "rediss://" : "redis://"
        if password != nil { s += "\(username ?? ""):***@" }
        s += host.contains(":") ? "[\(host)]" : host
        s += ":\(port)"
        if database != 0 { s += "/\(database)" }
        return s
    }

    public var debugDescription: String {
        "RedisConfiguration(\(description), connectTimeout: \(connectTimeout), commandTimeout: \(commandTimeout), "
            + "reconnect: \(reconnectMinDelay)...\(reconnectMaxDelay) jitter \(reconnectJitter), "
            + "maxPendingCommands: \(maxPendingCommands), caFile: \(caFile ?? "system"), "
            + "serverName: \(serverName ?? "host"), verifyCertificate: \(verifyCertificate))"
    }
}
