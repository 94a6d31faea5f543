//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import Logging
import SwitchboardServer

/// Reads an environment variable.
func env(_ name: String) -> String? {
    ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
}

/// Reads a boolean environment variable (`1`, `true`, `yes`, `on`).
func envFlag(_ name: String) -> Bool {
    guard let v = env(name)?.lowercased() else { return false }
    return ["1", "true", "yes", "on"].contains(v)
}

@main
struct SwitchboardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "switchboard",
        abstract: "Switchboard: a real-time hub for messaging and call signalling.",
        subcommands: [Serve.self, Migrate.self, HealthCheck.self],
        defaultSubcommand: Serve.self
    )
}

/// `switchboard serve`: parses flags (each with an environment variable) into a `ServerConfiguration` and runs.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (the default subcommand).")

    @OptionGroup var database: DatabaseOptions

    @OptionGroup(title: "Messaging") var messaging: MessagingOptions

    @OptionGroup(title: "Voice") var voice: VoiceOptions

    @OptionGroup(title: "Calls") var calls: CallOptions

    @OptionGroup(title: "Registration and contact discovery") var discovery: DiscoveryOptions

    @Option(help: "Address to listen on. [env: SWITCHBOARD_HOST]")
    var host: String = env("SWITCHBOARD_HOST") ?? "0.0.0.0"

    @Option(help: "TCP port (0: ephemeral). [env: SWITCHBOARD_PORT]")
    var port: Int = env("SWITCHBOARD_PORT").flatMap(Int.init) ?? 8080

    @Option(help: "Serial loop queues owning connections. [env: SWITCHBOARD_LOOPS]")
    var loops: Int = env("SWITCHBOARD_LOOPS").flatMap(Int.init) ?? ServerConfiguration.coreCount

    @Option(help: "Most concurrent connections. [env: SWITCHBOARD_MAX_CONNECTIONS]")
    var maxConnections: Int = env("SWITCHBOARD_MAX_CONNECTIONS").flatMap(Int.init) ?? 100_000

    @Option(help: "Listen backlog. [env: SWITCHBOARD_BACKLOG]")
    var backlog: Int32 = env("SWITCHBOARD_BACKLOG").flatMap(Int32.init) ?? 1024

    @Flag(help: "Share the port with other server processes (SO_REUSEPORT). [env: SWITCHBOARD_REUSE_PORT]")
    var reusePort: Bool = envFlag("SWITCHBOARD_REUSE_PORT")

    @Option(help: "Longest HTTP request line, bytes. [env: SWITCHBOARD_MAX_REQUEST_LINE]")
    var maxRequestLine: Int = env("SWITCHBOARD_MAX_REQUEST_LINE").flatMap(Int.init) ?? 8192

    @Option(help: "Largest HTTP request head, bytes. [env: SWITCHBOARD_MAX_HEADER_BYTES]")
    var maxHeaderBytes: Int = env("SWITCHBOARD_MAX_HEADER_BYTES").flatMap(Int.init) ?? 16384

    @Option(help: "Most HTTP header fields. [env: SWITCHBOARD_MAX_HEADER_COUNT]")
    var maxHeaderCount: Int = env("SWITCHBOARD_MAX_HEADER_COUNT").flatMap(Int.init) ?? 100

    @Option(help: "Largest HTTP request body on plain endpoints, bytes. [env: SWITCHBOARD_MAX_BODY_BYTES]")
    var maxBodyBytes: Int = env("SWITCHBOARD_MAX_BODY_BYTES").flatMap(Int.init) ?? 65536

    @Option(help: "Seconds to send a whole HTTP request head (a deadline, not reset by each byte). [env: SWITCHBOARD_HANDSHAKE_TIMEOUT]")
    var handshakeTimeout: Double = env("SWITCHBOARD_HANDSHAKE_TIMEOUT").flatMap(Double.init) ?? 10

    @Option(help: "Seconds a request body (e.g. a voice upload) may take in total. [env: SWITCHBOARD_BODY_TIMEOUT]")
    var bodyTimeout: Double = env("SWITCHBOARD_BODY_TIMEOUT").flatMap(Double.init) ?? 120

    @Option(help: "Bytes per second a request body must average after the first --handshake-timeout seconds; 0: off. [env: SWITCHBOARD_MIN_BODY_RATE]")
    var minBodyRate: Int = env("SWITCHBOARD_MIN_BODY_RATE").flatMap(Int.init) ?? 1024

    @Option(help: "Largest WebSocket frame payload, bytes. [env: SWITCHBOARD_MAX_FRAME_SIZE]")
    var maxFrameSize: Int = env("SWITCHBOARD_MAX_FRAME_SIZE").flatMap(Int.init) ?? 1 << 20

    @Option(help: "Largest WebSocket message, bytes. [env: SWITCHBOARD_MAX_MESSAGE_SIZE]")
    var maxMessageSize: Int = env("SWITCHBOARD_MAX_MESSAGE_SIZE").flatMap(Int.init) ?? 1 << 20

    @Option(help: "Seconds of silence before a ping. [env: SWITCHBOARD_PING_INTERVAL]")
    var pingInterval: Double = env("SWITCHBOARD_PING_INTERVAL").flatMap(Double.init) ?? 30

    @Option(help: "Seconds without input before closing. [env: SWITCHBOARD_IDLE_TIMEOUT]")
    var idleTimeout: Double = env("SWITCHBOARD_IDLE_TIMEOUT").flatMap(Double.init) ?? 90

    @Option(help: "Seconds to wait for the peer's close frame after ours. [env: SWITCHBOARD_CLOSE_TIMEOUT]")
    var closeTimeout: Double = env("SWITCHBOARD_CLOSE_TIMEOUT").flatMap(Double.init) ?? 5

    @Option(help: "Seconds an idle keep-alive HTTP connection is kept. [env: SWITCHBOARD_KEEP_ALIVE_TIMEOUT]")
    var keepAliveTimeout: Double = env("SWITCHBOARD_KEEP_ALIVE_TIMEOUT").flatMap(Double.init) ?? 30

    @Option(help: "Seconds a /ws connection may stay unauthenticated (then close 4002). [env: SWITCHBOARD_AUTH_TIMEOUT]")
    var authTimeout: Double = env("SWITCHBOARD_AUTH_TIMEOUT").flatMap(Double.init) ?? 10

    @Option(help: "State-changing requests of one /ws connection that may wait behind an earlier one (then rate_limited). [env: SWITCHBOARD_MAX_WAITING_REQUESTS]")
    var maxWaitingRequests: Int = env("SWITCHBOARD_MAX_WAITING_REQUESTS").flatMap(Int.init) ?? 1024

    @Option(help: "Country calling code for phone numbers without one, e.g. 1; empty requires +. [env: SWITCHBOARD_DEFAULT_COUNTRY_CODE]")
    var defaultCountryCode: String = env("SWITCHBOARD_DEFAULT_COUNTRY_CODE") ?? ""

    @Option(help: "Login attempts per phone number before the limit. [env: SWITCHBOARD_LOGIN_BURST_PER_PHONE]")
    var loginBurstPerPhone: Int = env("SWITCHBOARD_LOGIN_BURST_PER_PHONE").flatMap(Int.init) ?? 5

    @Option(help: "Seconds per further login attempt per phone number. [env: SWITCHBOARD_LOGIN_INTERVAL_PER_PHONE]")
    var loginIntervalPerPhone: Double = env("SWITCHBOARD_LOGIN_INTERVAL_PER_PHONE").flatMap(Double.init) ?? 12

    @Option(help: "Login attempts per client address before the limit. [env: SWITCHBOARD_LOGIN_BURST_PER_ADDRESS]")
    var loginBurstPerAddress: Int = env("SWITCHBOARD_LOGIN_BURST_PER_ADDRESS").flatMap(Int.init) ?? 20

    @Option(help: "Seconds per further login attempt per address. [env: SWITCHBOARD_LOGIN_INTERVAL_PER_ADDRESS]")
    var loginIntervalPerAddress: Double = env("SWITCHBOARD_LOGIN_INTERVAL_PER_ADDRESS").flatMap(Double.init) ?? 3

    @Option(help: "Concurrent Argon2id hashes. [env: SWITCHBOARD_PASSWORD_HASHERS]")
    var passwordHashers: Int = env("SWITCHBOARD_PASSWORD_HASHERS").flatMap(Int.init) ?? ServerConfiguration.coreCount

    @Flag(inversion: .prefixedNo, help: "Offer permessage-deflate. [env: SWITCHBOARD_DEFLATE=0 disables]")
    var deflate: Bool = env("SWITCHBOARD_DEFLATE").map { !["0", "false", "no", "off"].contains($0.lowercased()) } ?? true

    @Option(help: "Outbound bytes queued per connection before the backpressure policy applies. [env: SWITCHBOARD_MAX_OUTBOUND_BYTES]")
    var maxOutboundBytes: Int = env("SWITCHBOARD_MAX_OUTBOUND_BYTES").flatMap(Int.init) ?? 4 << 20

    @Option(help: "close-1013 or close-1008. [env: SWITCHBOARD_BACKPRESSURE_POLICY]")
    var backpressurePolicy: String = env("SWITCHBOARD_BACKPRESSURE_POLICY") ?? "close-1013"

    @Option(help: "Comma-separated allowed Origin values; empty allows all. [env: SWITCHBOARD_ALLOWED_ORIGINS]")
    var allowedOrigins: String = env("SWITCHBOARD_ALLOWED_ORIGINS") ?? ""

    @Option(help: "PEM certificate chain for wss://. [env: SWITCHBOARD_TLS_CERT]")
    var tlsCert: String = env("SWITCHBOARD_TLS_CERT") ?? ""

    @Option(help: "PEM private key for wss://. [env: SWITCHBOARD_TLS_KEY]")
    var tlsKey: String = env("SWITCHBOARD_TLS_KEY") ?? ""

    @Flag(help: "Serve the /echo WebSocket endpoint (conformance testing). [env: SWITCHBOARD_ENABLE_ECHO]")
    var enableEcho: Bool = envFlag("SWITCHBOARD_ENABLE_ECHO")

    @Option(help: "Seconds graceful shutdown drains connections. [env: SWITCHBOARD_SHUTDOWN_GRACE]")
    var shutdownGrace: Double = env("SWITCHBOARD_SHUTDOWN_GRACE").flatMap(Double.init) ?? 10

    @Option(help: "trace, debug, info, notice, warning, error or critical. [env: SWITCHBOARD_LOG_LEVEL]")
    var logLevel: String = env("SWITCHBOARD_LOG_LEVEL") ?? "info"

    func validate() throws {
        guard BackpressurePolicy(rawValue: backpressurePolicy) != nil else {
            throw ValidationError("--backpressure-policy must be close-1013 or close-1008")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard tlsCert.isEmpty == tlsKey.isEmpty else {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        guard maxWaitingRequests >= 0 else { throw ValidationError("--max-waiting-requests must not be negative") }
        guard handshakeTimeout > 0, bodyTimeout > 0, minBodyRate >= 0 else {
            throw ValidationError("--handshake-timeout and --body-timeout must be positive, --min-body-rate at least 0")
        }
        guard loops >= 1, maxConnections >= 1, maxFrameSize >= 125, maxMessageSize >= 125 else {
            throw ValidationError("--loops, --max-connections must be positive; frame and message sizes at least 125")
        }
    }

    func makeConfiguration() -> ServerConfiguration {
        var c = ServerConfiguration()
        c.host = host
        c.port = port
        c.loopCount = loops
        c.maxConnections = maxConnections
        c.backlog = backlog
        c.reusePort = reusePort
        c.maxRequestLineLength = maxRequestLine
        c.maxHeaderBytes = maxHeaderBytes
        c.maxHeaderCount = maxHeaderCount
        c.maxRequestBodyBytes = maxBodyBytes
        c.handshakeTimeout = handshakeTimeout
        c.bodyTimeout = bodyTimeout
        c.minBodyRate = minBodyRate
        c.maxFrameSize = maxFrameSize
        c.maxMessageSize = maxMessageSize
        c.pingInterval = pingInterval
        c.idleTimeout = idleTimeout
        c.closeTimeout = closeTimeout
        c.httpKeepAliveTimeout = keepAliveTimeout
        c.permessageDeflate = deflate
        c.maxOutboundBytes = maxOutboundBytes
        c.backpressurePolicy = BackpressurePolicy(rawValue: backpressurePolicy) ?? .close1013
        let origins = allowedOrigins.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        c.allowedOrigins = origins.isEmpty ? nil : origins
        c.tlsCertificatePath = tlsCert.isEmpty ? nil : tlsCert
        c.tlsPrivateKeyPath = tlsKey.isEmpty ? nil : tlsKey
        c.enableEcho = enableEcho
        c.shutdownGracePeriod = shutdownGrace
        c.authenticationTimeout = authTimeout
        c.maxWaitingRequests = maxWaitingRequests
        c.defaultCountryCode = defaultCountryCode.isEmpty ? nil : defaultCountryCode
        c.loginLimits.perPhoneBurst = loginBurstPerPhone
        c.loginLimits.perPhoneIntervalSeconds = loginIntervalPerPhone
        c.loginLimits.perAddressBurst = loginBurstPerAddress
        c.loginLimits.perAddressIntervalSeconds = loginIntervalPerAddress
        c.passwordHashers = max(1, passwordHashers)
        database.apply(to: &c)
        messaging.apply(to: &c)
        voice.apply(to: &c)
        calls.apply(to: &c)
        discovery.apply(to: &c)
        return c
    }

    func run() throws {
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "switchboard")
        let code = ServerRunner.run(configuration: makeConfiguration(), logger: logger)
        if code != 0 { throw ExitCode(code) }
    }
}

/// Where the data lives: an operator's PostgreSQL, or the embedded one under the data folder.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "PostgreSQL connection URL or libpq string; without it the server runs its own PostgreSQL under --data-dir. [env: DATABASE_URL or SWITCHBOARD_DATABASE_URL]")
    var databaseURL: String = env("SWITCHBOARD_DATABASE_URL") ?? env("DATABASE_URL") ?? ""

    @Option(help: "Folder for the server's data (the embedded PostgreSQL lives in <data-dir>/postgres). [env: SWITCHBOARD_DATA_DIR]")
    var dataDir: String = env("SWITCHBOARD_DATA_DIR") ?? "switchboard-data"

    @Option(help: "Connections in the database pool. [env: SWITCHBOARD_DB_POOL_SIZE]")
    var dbPoolSize: Int = env("SWITCHBOARD_DB_POOL_SIZE").flatMap(Int.init) ?? 4

    @Option(help: "Seconds before the second attempt to restart a crashed embedded PostgreSQL (doubling). [env: SWITCHBOARD_PG_RESTART_BACKOFF]")
    var pgRestartBackoff: Double = env("SWITCHBOARD_PG_RESTART_BACKOFF").flatMap(Double.init) ?? 0.5

    @Option(help: "Longest wait between attempts to restart a crashed embedded PostgreSQL, seconds. [env: SWITCHBOARD_PG_RESTART_BACKOFF_MAX]")
    var pgRestartBackoffMax: Double = env("SWITCHBOARD_PG_RESTART_BACKOFF_MAX").flatMap(Double.init) ?? 30

    func validate() throws {
        guard pgRestartBackoff > 0, pgRestartBackoffMax >= pgRestartBackoff else {
            throw ValidationError("--pg-restart-backoff must be positive and at most --pg-restart-backoff-max")
        }
    }

    func apply(to c: inout ServerConfiguration) {
        c.databaseURL = databaseURL.isEmpty ? nil : databaseURL
        c.dataDirectory = dataDir
        c.databasePoolSize = max(1, dbPoolSize)
        c.embeddedRestartBackoff = pgRestartBackoff
        c.embeddedRestartBackoffMax = pgRestartBackoffMax
    }
}

/// `switchboard migrate`: applies pending schema migrations and prints the schema version.
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Apply pending database migrations and exit.")

    @OptionGroup var database: DatabaseOptions

    func run() throws {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        var configuration = ServerConfiguration()
        database.apply(to: &configuration)
        let opened = try Database.open(configuration: configuration, logger: Logger(label: "switchboard"))
        opened.close()
    }
}
