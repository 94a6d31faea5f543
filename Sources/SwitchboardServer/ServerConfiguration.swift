//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
public import SwitchboardDomain
public import SwitchboardProtocol
import SwitchboardTransport

/// Every setting and limit of the server, with its documented default.
///
/// The command line builds one of these (each flag has an environment variable); tests build their own.
/// All durations are in seconds unless the name says otherwise.
public struct ServerConfiguration: Sendable {
    /// Address to listen on.
    public var host: String = "0.0.0.0"
    /// TCP port; 0 picks an ephemeral port (tests).
    public var port: Int = 8080
    /// Listen backlog.
    public var backlog: Int32 = 1024
    /// Number of serial loop queues owning connections (default: one per core).
    public var loopCount: Int = ServerConfiguration.coreCount
    /// Connections a loop turn flushes from those it wrote to, and again from its backlog; the rest wait for later
    /// turns, with reads and replies in between (a large fan-out does not hold a call's events behind it).
    public var loopFlushBudget: Int = ServerConfiguration.defaultLoopFlushBudget
    /// `loopFlushBudget`'s default (`EventLoopGroup.defaultFlushBudget`).
    public static let defaultLoopFlushBudget = EventLoopGroup.defaultFlushBudget
    /// Most concurrent connections; further ones are accepted and closed at once.
    public var maxConnections: Int = 100_000
    /// Let several server processes share the port (`SO_REUSEPORT`).
    public var reusePort: Bool = false

    /// Longest HTTP request line in bytes (414 past it).
    public var maxRequestLineLength: Int = 8192
    /// Largest HTTP request head in bytes (431 past it).
    public var maxHeaderBytes: Int = 16 * 1024
    /// Most header fields in one request (431 past it).
    public var maxHeaderCount: Int = 100
    /// Largest HTTP request body accepted on plain endpoints (413 past it).
    public var maxRequestBodyBytes: Int = 64 * 1024
    /// Seconds a connection may take to send a complete HTTP request head: a deadline counted from the accept
    /// for the first request and from the first byte of the head for later ones on a kept-alive connection
    /// (the idle wait before it is bounded by `httpKeepAliveTimeout`), not restarted by each byte.
    public var handshakeTimeout: Double = 10
    /// Seconds a request body (a voice upload, or a body skipped after an answer) may take in total, counted
    /// from the end of its head (408 and close past it).
    public var bodyTimeout: Double = 120
    /// Bytes per second a request body must average once `handshakeTimeout` seconds have passed since the end
    /// of its head (408 and close below it); 0 turns the check off.
    public var minBodyRate: Int = 1024
    /// Seconds an idle keep-alive HTTP connection is kept.
    public var httpKeepAliveTimeout: Double = 30

    /// Largest WebSocket frame payload in bytes (1009 past it).
    public var maxFrameSize: Int = 1 << 20
    /// Largest WebSocket message in bytes, after reassembly and decompression (1009 past it).
    public var maxMessageSize: Int = 1 << 20
    /// Seconds of silence before the server pings.
    public var pingInterval: Double = 30
    /// Seconds without any received byte before the connection is closed (1001).
    public var idleTimeout: Double = 90
    /// Seconds to wait for the peer's close frame after ours.
    public var closeTimeout: Double = 5
    /// Offer permessage-deflate (RFC 7692) to clients that ask for it.
    public var permessageDeflate: Bool = true
    /// Bytes queued for one connection beyond which `backpressurePolicy` applies.
    public var maxOutboundBytes: Int = 4 << 20
    /// What happens past `maxOutboundBytes`.
    public var backpressurePolicy: BackpressurePolicy = .close1013
    /// Allowed `Origin` values (`scheme://host[:port]`) of WebSocket upgrades; nil allows every origin. With a
    /// list, an Origin equal to `http://` or `https://` plus the request's `Host` (a page this hub served) is
    /// allowed too (docs/web.md).
    public var allowedOrigins: [String]? = nil
    /// Load balancers whose `X-Forwarded-For` names the client for per-address limits (`TrustedProxies`);
    /// none by default.
    public var trustedProxies: TrustedProxies = .none

    /// PEM certificate chain for `wss://`; TLS is on when both paths are set.
    public var tlsCertificatePath: String? = nil
    /// PEM private key for `wss://`.
    public var tlsPrivateKeyPath: String? = nil

    /// libpq connection string or URL of the production database; nil runs the embedded PostgreSQL.
    public var databaseURL: String? = nil
    /// Folder for the server's own data (the embedded PostgreSQL lives in `<dataDirectory>/postgres`).
    public var dataDirectory: String = "switchboard-data"
    /// Connections in the database pool.
    public var databasePoolSize: Int = 4
    /// Request tasks that may wait for a database connection; further ones answer `unavailable` with
    /// `retry_after_ms`.
    public var databaseMaxWaiters: Int = 1024
    /// Seconds a database session waits for a lock (a conversation's row lock held by another transaction) before
    /// its statement fails and the request answers `unavailable` with `retry_after_ms`; 0: no limit.
    public var databaseLockTimeout: Double = 2
    /// Seconds a database session may sit idle inside a transaction before PostgreSQL ends it (and its locks); 0:
    /// no limit.
    public var databaseIdleInTransactionTimeout: Double = 5
    /// Seconds one statement may run before PostgreSQL cancels it (the request answers `unavailable`); 0: no limit.
    /// Migrations are exempt; backups run `pg_dump` on sessions of their own.
    public var databaseStatementTimeout: Double = 30
    /// Request tasks of one connection that may wait for a database connection; further ones answer `unavailable`.
    public var databaseMaxWaitersPerOwner: Int = 64
    /// Database connections one client connection's requests may hold at once; 0: all but one of the pool's (at
    /// least one).
    public var databaseConnectionsPerOwner: Int = 0
    /// Seconds before the second attempt to restart a crashed embedded PostgreSQL (the first is immediate);
    /// doubles per failed attempt.
    public var embeddedRestartBackoff: Double = 0.5
    /// Longest wait between attempts to restart a crashed embedded PostgreSQL, seconds.
    public var embeddedRestartBackoffMax: Double = 30
    /// Scheduled backups (`docs/operations.md`); off unless a folder and an interval are set.
    public var backups = BackupSchedule()

    /// Seconds a `/ws` connection may stay unauthenticated (closed with 4002 after).
    public var authenticationTimeout: Double = 10
    /// State-changing requests one `/ws` connection may have waiting behind an earlier one (its ordered lane);
    /// further ones answer `rate_limited`.
    public var maxWaitingRequests: Int = 1024
    /// Requests one `/ws` connection may have in flight (decoded, not yet answered); at the limit the server stops
    /// reading that connection until one is answered.
    public var maxRequestsInFlight: Int = 64
    /// The byte limits every string parameter of every op is held to while it is decoded (`docs/protocol.md`,
    /// "Stored strings").
    public var stringParameters = StringParameterLimits()
    /// Country calling code for phone numbers given without one (e.g. "1"); nil requires `+`.
    public var defaultCountryCode: String? = nil
    /// Login attempt limits per phone number and per client address.
    public var loginLimits = LoginLimits()
    /// Registration and contact look-up limits per client address and per account.
    public var discoveryLimits = DiscoveryLimits()
    /// Phone verification: whether `register` needs a code, the codes' limits, the SMS gateway (default off).
    public var phoneVerification = PhoneVerificationSettings()
    /// The cluster this node joins (nil: a single node).
    public var cluster: ClusterConfiguration?
    /// Concurrent Argon2id hashes (default: cores).
    public var passwordHashers: Int = ServerConfiguration.coreCount
    /// Test only: awaited by `authenticate` between its database check and the connection's registration (a test
    /// suspends the account there). nil in production.
    public var authenticationCheckedForTesting: (@Sendable () async -> Void)?
    /// The nice value (0-19) of the worker threads that hash passwords, transcode voice and process photos. Above 0,
    /// a loop that wakes takes its core from a long job at once, so a fan-out or a call's signal is not slowed by the
    /// hashes in progress; the jobs take the time the loops leave. 0 runs them at the loops' priority.
    public var workerNice: Int32 = 10

    /// Serve the `/echo` WebSocket endpoint (conformance testing only; off by default).
    public var enableEcho: Bool = false
    /// Call signalling settings.
    public var calls = CallSettings()
    /// Messaging, presence and typing settings.
    public var messaging = MessagingConfiguration()
    /// Voice upload, transcoding and download settings.
    public var voice = VoiceConfiguration()
    /// Photo uploads, processing, the rendition cache and resumable uploads (`docs/photos.md`).
    public var photos = PhotoConfiguration()
    /// Serving the web app at `/` (off while `web.root` is nil).
    public var web = WebConfiguration()
    /// Account deletion and data export (`AccountLifecycle`).
    public var account = AccountConfiguration()
    /// Active-hours recording (`ActiveHoursRecorder`).
    public var activeHours = ActiveHoursConfiguration()
    /// Limits of communities, events, the calendar and courses.
    public var communities = CommunityConfiguration()
    /// Limits of posts, likes, reposts and timelines.
    public var posts = SocialPostConfiguration()
    /// Live pages (`--max-subscriptions`, `--live-replay-max`).
    public var live = LiveConfiguration()
    /// Follows (`--follow-burst`, `--follow-refill`, `--max-following`).
    public var socialGraph = SocialGraphConfiguration()
    /// Moments and photos in posts (`--moment-max-photos`, `--moment-caption-max`, `--post-max-photos`,
    /// `--moments-page-max`).
    public var moments = MomentConfiguration()
    /// Seconds graceful shutdown waits for connections to close before exiting.
    public var shutdownGracePeriod: Double = 10
    /// How long call records, deleted-message tombstones and revoked sessions are kept (the retention sweep).
    public var retention = RetentionSettings()

    /// Creates the default configuration.
    public init() {}

    /// Number of cores available to this process.
    public static var coreCount: Int {
        max(1, sysconfCores())
    }
}

#if canImport(Glibc)
import Glibc
private func sysconfCores() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
#else
import Darwin
import SwitchboardDomain
private func sysconfCores() -> Int { Int(sysconf(_SC_NPROCESSORS_ONLN)) }
#endif
