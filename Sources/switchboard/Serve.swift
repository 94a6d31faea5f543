//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import ArgumentParser
import CSwitchboardSys
import Foundation
import Logging
import SwitchboardServer

/// `switchboard serve`: parses flags (each with an environment variable) into a `ServerConfiguration` and runs.
struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server (the default subcommand).")

    @OptionGroup var database: DatabaseOptions

    @OptionGroup(title: "Messaging") var messaging: MessagingOptions

    @OptionGroup(title: "Voice") var voice: VoiceOptions

    @OptionGroup(title: "Photos and resumable uploads") var photos: PhotoOptions

    @OptionGroup(title: "Communities, events and courses") var communities: CommunityOptions

    @OptionGroup(title: "Posts, likes and reposts") var posts: PostOptions

    @OptionGroup(title: "Moments and photos in posts") var moments: MomentOptions

    @OptionGroup(title: "Live pages") var live: LiveOptions
    @OptionGroup(title: "Follows") var socialGraph: SocialGraphOptions

    @OptionGroup(title: "Calls") var calls: CallOptions

    @OptionGroup(title: "Registration and contact discovery") var discovery: DiscoveryOptions

    @OptionGroup(title: "Phone verification") var verification: VerificationOptions

    @OptionGroup(title: "Cluster") var cluster: ClusterOptions

    @OptionGroup(title: "Web app") var webApp: WebOptions

    @OptionGroup(title: "Retention") var retention: RetentionOptions

    @OptionGroup(title: "Backups") var backups: BackupOptions

    @OptionGroup(title: "Account deletion and data export") var account: AccountOptions

    @Option(help: "Address to listen on. [env: SWITCHBOARD_HOST]")
    var host: String = env("SWITCHBOARD_HOST") ?? "0.0.0.0"

    @Option(help: "TCP port (0: ephemeral). [env: SWITCHBOARD_PORT]")
    var port: Int = envValue("SWITCHBOARD_PORT", as: Int.self) ?? 8080

    @Option(help: "Serial loop queues owning connections. [env: SWITCHBOARD_LOOPS]")
    var loops: Int = envValue("SWITCHBOARD_LOOPS", as: Int.self) ?? ServerConfiguration.coreCount

    @Option(
        help: """
            Connections a loop turn flushes from those it wrote to, and again from its backlog; the rest wait for \
            later turns, with reads and replies in between. [env: SWITCHBOARD_LOOP_FLUSH_BUDGET]
            """)
    var loopFlushBudget: Int =
        envValue("SWITCHBOARD_LOOP_FLUSH_BUDGET", as: Int.self) ?? ServerConfiguration.defaultLoopFlushBudget

    @Option(help: "Most concurrent connections. [env: SWITCHBOARD_MAX_CONNECTIONS]")
    var maxConnections: Int = envValue("SWITCHBOARD_MAX_CONNECTIONS", as: Int.self) ?? 100_000

    @Option(help: "Listen backlog. [env: SWITCHBOARD_BACKLOG]")
    var backlog: Int32 = envValue("SWITCHBOARD_BACKLOG", as: Int32.self) ?? 1024

    @Flag(help: "Share the port with other server processes (SO_REUSEPORT). [env: SWITCHBOARD_REUSE_PORT]")
    var reusePort: Bool = envFlag("SWITCHBOARD_REUSE_PORT")

    @Option(help: "Longest HTTP request line, bytes. [env: SWITCHBOARD_MAX_REQUEST_LINE]")
    var maxRequestLine: Int = envValue("SWITCHBOARD_MAX_REQUEST_LINE", as: Int.self) ?? 8192

    @Option(help: "Largest HTTP request head, bytes. [env: SWITCHBOARD_MAX_HEADER_BYTES]")
    var maxHeaderBytes: Int = envValue("SWITCHBOARD_MAX_HEADER_BYTES", as: Int.self) ?? 16384

    @Option(help: "Most HTTP header fields. [env: SWITCHBOARD_MAX_HEADER_COUNT]")
    var maxHeaderCount: Int = envValue("SWITCHBOARD_MAX_HEADER_COUNT", as: Int.self) ?? 100

    @Option(help: "Largest HTTP request body on plain endpoints, bytes. [env: SWITCHBOARD_MAX_BODY_BYTES]")
    var maxBodyBytes: Int = envValue("SWITCHBOARD_MAX_BODY_BYTES", as: Int.self) ?? 65536

    @Option(
        help:
            """
            Seconds to send a whole HTTP request head (a deadline, not reset by each byte). [env: \
            SWITCHBOARD_HANDSHAKE_TIMEOUT]
            """
    )
    var handshakeTimeout: Double = envValue("SWITCHBOARD_HANDSHAKE_TIMEOUT", as: Double.self) ?? 10

    @Option(help: "Seconds a request body (e.g. a voice upload) may take in total. [env: SWITCHBOARD_BODY_TIMEOUT]")
    var bodyTimeout: Double = envValue("SWITCHBOARD_BODY_TIMEOUT", as: Double.self) ?? 120

    @Option(
        help:
            """
            Bytes per second a request body must average after the first --handshake-timeout seconds; 0: off. [env: \
            SWITCHBOARD_MIN_BODY_RATE]
            """
    )
    var minBodyRate: Int = envValue("SWITCHBOARD_MIN_BODY_RATE", as: Int.self) ?? 1024

    @Option(
        help:
            """
            Requests one WebSocket connection may have in flight before the server stops reading it. [env: \
            SWITCHBOARD_MAX_REQUESTS_IN_FLIGHT]
            """
    )
    var maxRequestsInFlight: Int = envValue("SWITCHBOARD_MAX_REQUESTS_IN_FLIGHT", as: Int.self) ?? 64

    @Option(
        help:
            """
            Most bytes (UTF-8) of a one-line string parameter of any op (a name, an id, a password), checked while \
            the request is decoded; longer is bad_request. [env: SWITCHBOARD_MAX_LINE_PARAMETER_BYTES]
            """
    )
    var maxLineParameterBytes: Int = envValue("SWITCHBOARD_MAX_LINE_PARAMETER_BYTES", as: Int.self) ?? 2048

    @Option(
        help:
            """
            Most bytes (UTF-8) of a free-text string parameter of any op (a message, a caption, a description), \
            checked while the request is decoded; the feature's own limit applies after. [env: \
            SWITCHBOARD_MAX_TEXT_PARAMETER_BYTES]
            """
    )
    var maxTextParameterBytes: Int = envValue("SWITCHBOARD_MAX_TEXT_PARAMETER_BYTES", as: Int.self) ?? 48 * 1024

    @Option(help: "Largest WebSocket frame payload, bytes. [env: SWITCHBOARD_MAX_FRAME_SIZE]")
    var maxFrameSize: Int = envValue("SWITCHBOARD_MAX_FRAME_SIZE", as: Int.self) ?? 1 << 20

    @Option(help: "Largest WebSocket message, bytes. [env: SWITCHBOARD_MAX_MESSAGE_SIZE]")
    var maxMessageSize: Int = envValue("SWITCHBOARD_MAX_MESSAGE_SIZE", as: Int.self) ?? 1 << 20

    @Option(help: "Seconds of silence before a ping. [env: SWITCHBOARD_PING_INTERVAL]")
    var pingInterval: Double = envValue("SWITCHBOARD_PING_INTERVAL", as: Double.self) ?? 30

    @Option(help: "Seconds without input before closing. [env: SWITCHBOARD_IDLE_TIMEOUT]")
    var idleTimeout: Double = envValue("SWITCHBOARD_IDLE_TIMEOUT", as: Double.self) ?? 90

    @Option(help: "Seconds to wait for the peer's close frame after ours. [env: SWITCHBOARD_CLOSE_TIMEOUT]")
    var closeTimeout: Double = envValue("SWITCHBOARD_CLOSE_TIMEOUT", as: Double.self) ?? 5

    @Option(help: "Seconds an idle keep-alive HTTP connection is kept. [env: SWITCHBOARD_KEEP_ALIVE_TIMEOUT]")
    var keepAliveTimeout: Double = envValue("SWITCHBOARD_KEEP_ALIVE_TIMEOUT", as: Double.self) ?? 30

    @Option(
        help: "Seconds a /ws connection may stay unauthenticated (then close 4002). [env: SWITCHBOARD_AUTH_TIMEOUT]")
    var authTimeout: Double = envValue("SWITCHBOARD_AUTH_TIMEOUT", as: Double.self) ?? 10

    @Option(
        help:
            """
            State-changing requests of one /ws connection that may wait behind an earlier one (then rate_limited). \
            [env: SWITCHBOARD_MAX_WAITING_REQUESTS]
            """
    )
    var maxWaitingRequests: Int = envValue("SWITCHBOARD_MAX_WAITING_REQUESTS", as: Int.self) ?? 1024

    @Option(
        help:
            """
            Country calling code for phone numbers without one, e.g. 1; empty requires +. [env: \
            SWITCHBOARD_DEFAULT_COUNTRY_CODE]
            """
    )
    var defaultCountryCode: String = env("SWITCHBOARD_DEFAULT_COUNTRY_CODE") ?? ""

    @Option(help: "Login attempts per phone number before the limit. [env: SWITCHBOARD_LOGIN_BURST_PER_PHONE]")
    var loginBurstPerPhone: Int = envValue("SWITCHBOARD_LOGIN_BURST_PER_PHONE", as: Int.self) ?? 5

    @Option(help: "Seconds per further login attempt per phone number. [env: SWITCHBOARD_LOGIN_INTERVAL_PER_PHONE]")
    var loginIntervalPerPhone: Double = envValue("SWITCHBOARD_LOGIN_INTERVAL_PER_PHONE", as: Double.self) ?? 12

    @Option(help: "Login attempts per client address before the limit. [env: SWITCHBOARD_LOGIN_BURST_PER_ADDRESS]")
    var loginBurstPerAddress: Int = envValue("SWITCHBOARD_LOGIN_BURST_PER_ADDRESS", as: Int.self) ?? 20

    @Option(help: "Seconds per further login attempt per address. [env: SWITCHBOARD_LOGIN_INTERVAL_PER_ADDRESS]")
    var loginIntervalPerAddress: Double = envValue("SWITCHBOARD_LOGIN_INTERVAL_PER_ADDRESS", as: Double.self) ?? 3

    @Option(
        help: """
            malloc arenas (glibc M_ARENA_MAX; 0: glibc's default of 8 per core). Each Dispatch thread that allocates \
            otherwise gets its own arena, and their high-water marks stay in the resident memory. \
            [env: SWITCHBOARD_MALLOC_ARENAS]
            """)
    var mallocArenas: Int = envValue("SWITCHBOARD_MALLOC_ARENAS", as: Int.self) ?? ServerConfiguration.coreCount

    @Option(help: "Concurrent Argon2id hashes. [env: SWITCHBOARD_PASSWORD_HASHERS]")
    var passwordHashers: Int = envValue("SWITCHBOARD_PASSWORD_HASHERS", as: Int.self) ?? ServerConfiguration.coreCount

    @Option(
        help: """
            Nice value (0-19) of the threads that hash passwords, transcode voice and process photos: above 0 the \
            loops take a core from them at once. 0: the loops' priority. [env: SWITCHBOARD_WORKER_NICE]
            """)
    var workerNice: Int32 = envValue("SWITCHBOARD_WORKER_NICE", as: Int32.self) ?? 10

    @Flag(inversion: .prefixedNo, help: "Offer permessage-deflate. [env: SWITCHBOARD_DEFLATE=0 disables]")
    var deflate: Bool = envFlag("SWITCHBOARD_DEFLATE", default: true)

    @Option(
        help:
            """
            Outbound bytes queued per connection before the backpressure policy applies. [env: \
            SWITCHBOARD_MAX_OUTBOUND_BYTES]
            """
    )
    var maxOutboundBytes: Int = envValue("SWITCHBOARD_MAX_OUTBOUND_BYTES", as: Int.self) ?? 4 << 20

    @Option(help: "close-1013 or close-1008. [env: SWITCHBOARD_BACKPRESSURE_POLICY]")
    var backpressurePolicy: String = env("SWITCHBOARD_BACKPRESSURE_POLICY") ?? "close-1013"

    @Option(help: "Comma-separated allowed Origin values; empty allows all. [env: SWITCHBOARD_ALLOWED_ORIGINS]")
    var allowedOrigins: String = env("SWITCHBOARD_ALLOWED_ORIGINS") ?? ""

    @Option(
        help: """
            Comma-separated addresses or CIDR blocks of load balancers whose X-Forwarded-For names the client for \
            per-address limits (the nearest address that is not one of them). [env: SWITCHBOARD_TRUSTED_PROXIES]
            """)
    var trustedProxy: String = env("SWITCHBOARD_TRUSTED_PROXIES") ?? ""

    @Option(help: "PEM certificate chain for wss://. [env: SWITCHBOARD_TLS_CERT]")
    var tlsCert: String = env("SWITCHBOARD_TLS_CERT") ?? ""

    @Option(help: "PEM private key for wss://. [env: SWITCHBOARD_TLS_KEY]")
    var tlsKey: String = env("SWITCHBOARD_TLS_KEY") ?? ""

    @Flag(help: "Serve the /echo WebSocket endpoint (conformance testing). [env: SWITCHBOARD_ENABLE_ECHO]")
    var enableEcho: Bool = envFlag("SWITCHBOARD_ENABLE_ECHO")

    @Option(help: "Seconds graceful shutdown drains connections. [env: SWITCHBOARD_SHUTDOWN_GRACE]")
    var shutdownGrace: Double = envValue("SWITCHBOARD_SHUTDOWN_GRACE", as: Double.self) ?? 10

    @Option(help: "trace, debug, info, notice, warning, error or critical. [env: SWITCHBOARD_LOG_LEVEL]")
    var logLevel: String = env("SWITCHBOARD_LOG_LEVEL") ?? "info"

    func validate() throws {
        guard backups.walArchive.isEmpty || database.databaseURL.isEmpty else {
            throw ValidationError(
                "--wal-archive is for the embedded PostgreSQL; archive an external one with its own tools")
        }
        guard BackpressurePolicy(rawValue: backpressurePolicy) != nil else {
            throw ValidationError("--backpressure-policy must be close-1013 or close-1008")
        }
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        guard tlsCert.isEmpty == tlsKey.isEmpty else {
            throw ValidationError("--tls-cert and --tls-key go together")
        }
        do {
            _ = try TrustedProxies(trustedProxy.split(separator: ",").map(String.init))
        } catch {
            throw ValidationError("--trusted-proxy: \(error)")
        }
        guard mallocArenas >= 0 else { throw ValidationError("--malloc-arenas must be 0 or more") }
        guard maxRequestsInFlight >= 1 else { throw ValidationError("--max-requests-in-flight must be at least 1") }
        guard maxLineParameterBytes >= 64, maxTextParameterBytes >= maxLineParameterBytes else {
            throw ValidationError(
                "--max-line-parameter-bytes must be at least 64 and --max-text-parameter-bytes at least as large")
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
        c.loopFlushBudget = max(1, loopFlushBudget)
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
        c.trustedProxies = (try? TrustedProxies(trustedProxy.split(separator: ",").map(String.init))) ?? .none
        c.tlsCertificatePath = tlsCert.isEmpty ? nil : tlsCert
        c.tlsPrivateKeyPath = tlsKey.isEmpty ? nil : tlsKey
        c.enableEcho = enableEcho
        c.shutdownGracePeriod = shutdownGrace
        c.authenticationTimeout = authTimeout
        c.maxWaitingRequests = maxWaitingRequests
        c.maxRequestsInFlight = maxRequestsInFlight
        c.stringParameters.maxLineBytes = maxLineParameterBytes
        c.stringParameters.maxTextBytes = maxTextParameterBytes
        c.defaultCountryCode = defaultCountryCode.isEmpty ? nil : defaultCountryCode
        c.loginLimits.perPhoneBurst = loginBurstPerPhone
        c.loginLimits.perPhoneIntervalSeconds = loginIntervalPerPhone
        c.loginLimits.perAddressBurst = loginBurstPerAddress
        c.loginLimits.perAddressIntervalSeconds = loginIntervalPerAddress
        c.passwordHashers = max(1, passwordHashers)
        c.workerNice = min(19, max(0, workerNice))
        database.apply(to: &c)
        messaging.apply(to: &c)
        voice.apply(to: &c)
        photos.apply(to: &c)
        communities.apply(to: &c)
        posts.apply(to: &c)
        moments.apply(to: &c)
        live.apply(to: &c)
        socialGraph.apply(to: &c)
        calls.apply(to: &c)
        discovery.apply(to: &c)
        verification.apply(to: &c, embedded: database.databaseURL.isEmpty)
        cluster.apply(to: &c)
        webApp.apply(to: &c)
        retention.apply(to: &c)
        backups.apply(to: &c)

        account.apply(to: &c)
        return c
    }

    func run() throws {
        if mallocArenas > 0 { _ = CSwitchboardSys_set_malloc_arenas(Int32(clamping: mallocArenas)) }
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "switchboard")
        let web = webApp.resolveRoot()
        if web.root == nil { logger.info("\(web.note)") } else { logger.debug("\(web.note)") }
        let code = ServerRunner.run(configuration: makeConfiguration(), logger: logger)
        if code != 0 { throw ExitCode(code) }
    }
}
