//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
public import Logging
import SwitchboardCore
import SwitchboardDomain
public import SwitchboardProtocol
public import SwitchboardStore
import SwitchboardTransport
import SwitchboardWebSocket
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The Switchboard server: transport, HTTP endpoints and WebSocket sessions.
public final class HubServer: @unchecked Sendable {
    // @unchecked Sendable: mutable state (`transport`, `contexts`, `phase`) is guarded by `lock`.

    public let configuration: ServerConfiguration
    public let logger: Logger
    public let metrics: ServerMetrics
    /// The durable store; nil only in transport-level tests.
    public let database: DatabasePool?
    /// The `/ws` protocol services; present when a database is.
    let services: ProtocolServices?
    /// The features and what they registered (ops, HTTP routes, ...); present when a database is.
    let application: ServerApplication?
    let group: EventLoopGroup
    let handshakeConfiguration: WebSocketHandshakeConfiguration
    /// One for every WebSocket of this server.
    let webSocketConfiguration: SharedWebSocketConfiguration
    let parserLimits: HTTPParserLimits
    /// The web app's files (`docs/web.md`); nil when no web root is configured.
    let web: WebSite?
    private let lock = NSLock()
    // protected by lock
    private var transport: TransportServer?
    // protected by lock
    private var contexts: [LoopContext] = []
    // protected by lock
    private var phase: Phase = .created

    enum Phase {
        case created
        case running
        case draining
        case stopped
    }

    /// Creates a server (nothing listens until ``start()``).
    /// - Parameters:
    ///   - database: The durable store; nil only in transport-level tests.
    ///   - databaseServerRunning: Whether the database server is up (the embedded PostgreSQL's supervisor);
    ///     `/readyz` answers 503 while it says no, without waiting for the next database check.
    public init(
        configuration: ServerConfiguration, logger: Logger, database: DatabasePool? = nil,
        databaseServerRunning: (@Sendable () -> Bool)? = nil, cluster: ClusterNode? = nil, metrics: ServerMetrics? = nil
    ) throws {
        self.configuration = configuration
        self.database = database
        self.databaseServerRunning = databaseServerRunning
        let metrics = metrics ?? ServerMetrics(loopCount: configuration.loopCount)
        self.metrics = metrics
        if let database {
            // The pool's waits and refusals as they happen, its gauges at each scrape.
            metrics.observe(database)
            let accounts = IdentityService(
                db: database,
                hasher: PasswordHasherPool(workers: configuration.passwordHashers, nice: configuration.workerNice),
                defaultCountryCode: configuration.defaultCountryCode, loginLimits: configuration.loginLimits,
                registrationLimits: configuration.discoveryLimits, verification: configuration.phoneVerification,
                smsGateway: configuration.phoneVerification.gateway.makeGateway(logger: logger),
                smsGatewayFailed: { [counter = metrics.smsGatewayFailures] in counter.increment() },
                nodesSharingLimits: { cluster?.directory.liveNodeCount ?? 1 })
            let services = ProtocolServices(
                accounts: accounts, pool: database,
                configuration: configuration, metrics: metrics, logger: logger, cluster: cluster)
            self.services = services
            application = ServerApplication(services: services, logger: logger)
        } else {
            services = nil
            application = nil
        }
        self.logger = logger
        group = try EventLoopGroup(
            loopCount: configuration.loopCount, flushBudget: configuration.loopFlushBudget, logger: logger)
        var handshake = WebSocketHandshakeConfiguration()
        handshake.supportedSubprotocols = ["switchboard.v1"]
        handshake.allowedOrigins = configuration.allowedOrigins
        handshake.allowNoOrigin = true
        // A page the hub served itself may always connect (docs/web.md): Origin equal to http(s):// + Host.
        handshake.allowSameOrigin = true
        handshake.permessageDeflate = configuration.permessageDeflate ? PerMessageDeflateConfiguration() : nil
        handshakeConfiguration = handshake
        var ws = WebSocketConfiguration()
        ws.maxFrameSize = configuration.maxFrameSize
        ws.maxMessageSize = configuration.maxMessageSize
        ws.pingInterval = UInt64(configuration.pingInterval * 1e9)
        ws.idleTimeout = UInt64(configuration.idleTimeout * 1e9)
        ws.closeTimeout = UInt64(configuration.closeTimeout * 1e9)
        webSocketConfiguration = SharedWebSocketConfiguration(ws)
        parserLimits = HTTPParserLimits(
            maxRequestLineLength: configuration.maxRequestLineLength, maxHeaderBytes: configuration.maxHeaderBytes,
            maxHeaderCount: configuration.maxHeaderCount)
        // Read here, before anything listens: never on a loop.
        web = configuration.web.root.map { WebSite(root: $0, configuration: configuration.web, logger: logger) }
    }

    /// Whether the server accepts work (`/readyz`): running, the last database check passed, the database
    /// server (when we supervise it) is up, and in a cluster both Redis connections are up and recovered
    /// (`ClusterNode.isReady`).
    public var isReady: Bool {
        lock.lock()
        let ready = phase == .running && databaseHealthy
        lock.unlock()
        return ready && (databaseServerRunning?() ?? true) && (services?.cluster?.isReady ?? true)
    }

    private let databaseServerRunning: (@Sendable () -> Bool)?

    // protected by lock
    private var databaseHealthy = true
    private let healthQueue = DispatchQueue(label: "switchboard.health")

    /// Every 2 s, `SELECT 1` on the pool (never on a loop queue): `/readyz` answers 503 while it fails.
    private func scheduleDatabaseCheck() {
        guard let database else { return }
        healthQueue.asyncAfter(deadline: .now() + 2) { [weak self] in
            guard let self, self.isRunning else { return }
            database.withConnection(
                on: self.healthQueue, { db in try db.query("SELECT 1").count }
            ) { [weak self] result in
                guard let self else { return }
                let healthy = (try? result.get()) == 1
                self.lock.lock()
                let changed = self.databaseHealthy != healthy
                self.databaseHealthy = healthy
                self.lock.unlock()
                if changed { self.logger.warning("database health changed", metadata: [LogKey.healthy: "\(healthy)"]) }
                self.scheduleDatabaseCheck()
            }
        }
    }

    private var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        return phase == .running
    }

    var isDraining: Bool {
        lock.lock()
        defer { lock.unlock() }
        return phase == .draining || phase == .stopped
    }

    /// Runs a no-op on every loop queue and calls `answered` (on the last loop to run it) once all have: the
    /// watchdog's liveness probe (a wedged loop never answers).
    public func probeLoops(_ answered: @escaping @Sendable () -> Void) {
        let remaining = Countdown(group.loops.count)
        for loop in group.loops {
            loop.execute { if remaining.decrement() == 0 { answered() } }
        }
    }

    /// Voice uploads holding a slot (authenticated, body being received or processed).
    public var voiceUploadsInProgress: Int { services?.voice.uploadsInProgress ?? 0 }

    /// Open TCP connections.
    public var connectionCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return transport?.connectionCount ?? 0
    }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() throws -> Int {
        let tls: TLSContext?
        if let cert = configuration.tlsCertificatePath, let key = configuration.tlsPrivateKeyPath {
            tls = try TLSContext(certificatePath: cert, privateKeyPath: key)
        } else {
            tls = nil
        }
        let contexts = group.loops.map { LoopContext(loop: $0, server: self) }
        for context in contexts {
            let metrics = self.metrics
            context.loop.setSweepObserver { index, lag in
                metrics.publish(context.traffic, writeCalls: context.loop.writeCalls)
                metrics.loopLag[index].record(Double(lag) / 1e9)
            }
        }
        var transportConfiguration = TransportConfiguration()
        transportConfiguration.host = configuration.host
        transportConfiguration.port = configuration.port
        transportConfiguration.backlog = configuration.backlog
        transportConfiguration.maxConnections = configuration.maxConnections
        transportConfiguration.reusePort = configuration.reusePort
        let metrics = self.metrics
        let transport = TransportServer(
            configuration: transportConfiguration, group: group, tls: tls, logger: logger,
            onReject: { metrics.connectionsRejected.increment() }
        ) { connection in
            metrics.connectionsAccepted.increment()
            return HTTPSession(connection: connection, context: contexts[connection.loop.index])
        }
        let port: Int
        do {
            port = try transport.start()
        } catch {
            group.shutdown()
            throw error
        }
        lock.lock()
        self.transport = transport
        self.contexts = contexts
        phase = .running
        lock.unlock()
        scheduleDatabaseCheck()
        web?.startWatching()
        for hook in application?.lifecycle ?? [] { hook.start() }
        services?.activeHours.start()
        logger.info(
            "listening",
            metadata: [
                LogKey.host: "\(configuration.host)", LogKey.port: "\(port)", LogKey.loops: "\(group.loops.count)",
                LogKey.tls: "\(tls != nil)",
            ])
        if web != nil {
            let page = Self.pageURL(host: configuration.host, port: port, tls: tls != nil)
            logger.info("web app ready: open \(page) in a browser")
        }
        return port
    }

    /// The traits of every op the features registered, by name (checked against the schema and the documentation).
    public var registeredOperations: [OperationTraits] { application?.registeredOperations ?? [] }

    /// Collects a data export of `userId` from every feature's sections, as `account.export` builds it.
    public func collectExport(userId: Int64, exportId: Int64) async throws -> [(path: String, bytes: [UInt8])] {
        guard let lifecycle = application?.features.lazy.compactMap({ $0 as? AccountDataFeature }).first?.lifecycle
        else { return [] }
        return try await lifecycle.collect(userId: userId, exportId: exportId).map { ($0.path, $0.bytes) }
    }

    /// The web app's address for people: a wildcard host becomes the loopback address.
    public static func pageURL(host: String, port: Int, tls: Bool) -> String {
        var name = host
        switch host {
        case "", "0.0.0.0": name = "127.0.0.1"
        case "::", "[::]": name = "[::1]"
        default: if host.contains(":") && !host.hasPrefix("[") { name = "[\(host)]" }
        }
        return "\(tls ? "https" : "http")://\(name):\(port)/"
    }

    /// Graceful shutdown: close WebSockets with 1001 and idle HTTP connections, wait up to the grace period for
    /// them to finish, then stop accepting and drop the rest. While draining, the listener stays open and every
    /// new request (plain HTTP including `/readyz`, WebSocket upgrades, voice) is answered 503 with
    /// `Retry-After` and `Connection: close`, so a load balancer sees the 503. `completion` runs on a private
    /// queue.
    public func shutdown(completion: @escaping @Sendable () -> Void) {
        lock.lock()
        guard phase == .running, let transport else {
            lock.unlock()
            completion()
            return
        }
        phase = .draining
        lock.unlock()
        logger.info("shutting down", metadata: [LogKey.connections: "\(transport.connectionCount)"])
        // Calls in progress end with server_shutdown (their parties are told, their records written).
        services?.calls.shutdown()
        for hook in application?.lifecycle ?? [] { hook.stop() }
        transport.forEachConnection { connection in
            (connection.handler as? HTTPSession)?.beginShutdown()
        }
        let deadline = DispatchTime.now() + configuration.shutdownGracePeriod
        let queue = DispatchQueue(label: "switchboard.shutdown")
        @Sendable func poll() {
            if transport.connectionCount == 0 || DispatchTime.now() >= deadline {
                transport.stopAccepting()
                let remaining = transport.connectionCount
                if remaining > 0 {
                    logger.warning(
                        "grace period over: dropping connections", metadata: [LogKey.connections: "\(remaining)"])
                }
                for loop in group.loops { loop.setSweepObserver(nil) }
                // Completion once the loops have run their close callbacks (without blocking this queue).
                group.shutdown(notifying: queue) { [self] in
                    lock.lock()
                    phase = .stopped
                    // Breaks the server <-> LoopContext cycle (see LoopContext).
                    contexts = []
                    self.transport = nil
                    lock.unlock()
                    web?.stopWatching()
                    // The closed connections' time, before the database closes (bounded).
                    services?.activeHours.stop()
                    logger.info("stopped")
                    completion()
                }
                return
            }
            queue.asyncAfter(deadline: .now() + .milliseconds(20)) { poll() }
        }
        queue.async { poll() }
    }
}

/// A count shared by closures on several queues.
private final class Countdown: Sendable {
    private let value: Mutex<Int>
    init(_ count: Int) { value = Mutex(count) }
    /// Subtracts one; the new count.
    func decrement() -> Int {
        value.withLock {
            $0 -= 1; return $0
        }
    }
}
