//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import CSwitchboardSys
import Dispatch
public import Logging

#if canImport(Glibc)
import Glibc
#endif

/// A listening socket whose accepted connections are spread over the group's loops.
public final class TransportServer: @unchecked Sendable {
    // @unchecked Sendable: mutable state is confined to `acceptQueue` (marked below); counters are locked.

    public let configuration: TransportConfiguration
    public let group: EventLoopGroup
    private let tls: TLSContext?
    private let logger: Logger
    private let makeHandler: @Sendable (Connection) -> any ConnectionHandler
    private let acceptQueue = DispatchQueue(label: "switchboard.accept")
    private let open = AtomicCounter()
    private let accepted = AtomicCounter()
    private let rejected = AtomicCounter()
    /// Called on the accept queue for every connection closed at once over `maxConnections`.
    private let onReject: (@Sendable () -> Void)?

    // protected by acceptQueue
    private var listenFD: Int32 = -1
    // protected by acceptQueue
    private var source: (any DispatchSourceRead)?
    // protected by acceptQueue
    private var suspended = false
    // protected by acceptQueue
    private var stopped = false
    // protected by acceptQueue
    private var backoff = AcceptBackoff()
    // protected by acceptQueue
    private var lastExhaustionLog: UInt64 = 0

    public init(
        configuration: TransportConfiguration,
        group: EventLoopGroup,
        tls: TLSContext?,
        logger: Logger,
        onReject: (@Sendable () -> Void)? = nil,
        makeHandler: @escaping @Sendable (Connection) -> any ConnectionHandler
    ) {
        self.onReject = onReject
        self.configuration = configuration
        self.group = group
        self.tls = tls
        self.logger = logger
        self.makeHandler = makeHandler
    }

    /// Open connections.
    public var connectionCount: Int { open.current }
    /// Connections accepted since start.
    public var acceptedTotal: Int { accepted.current }
    /// Connections refused over `maxConnections`.
    public var rejectedTotal: Int { rejected.current }

    /// Binds, listens and starts accepting; returns the bound port.
    public func start() throws -> Int {
        try acceptQueue.sync {
            let fd = try Self.bindListen(configuration)
            listenFD = fd
            let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: acceptQueue)
            source.setEventHandler { [unowned self] in self.acceptBatch() }
            source.setCancelHandler { Glibc.close(fd) }
            self.source = source
            source.resume()
            return Self.boundPort(fd)
        }
    }

    /// Stops accepting and closes the listening socket.
    public func stopAccepting() {
        acceptQueue.sync {
            guard !stopped, let source else { return }
            stopped = true
            // The fd is closed by the cancel handler, which runs later on this queue: shut the socket down now, so
            // that a connect after this call returns is refused (Linux takes a listening socket out of LISTEN).
            _ = Glibc.shutdown(listenFD, Int32(SHUT_RDWR))
            if suspended { source.resume() }  // a suspended source must not be cancelled-and-released
            source.cancel()
        }
    }

    /// Runs `body` on every loop for each of its connections.
    public func forEachConnection(_ body: @escaping @Sendable (Connection) -> Void) {
        for loop in group.loops {
            loop.execute { loop.forEachConnection(body) }
        }
    }

    private func acceptBatch() {
        dispatchPrecondition(condition: .onQueue(acceptQueue))
        for _ in 0..<256 {
            if stopped || suspended { return }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    CSwitchboardSys_accept_nonblocking(listenFD, $0, &length)
                }
            }
            if fd < 0 {
                let e = errno
                switch e {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EAGAIN, EWOULDBLOCK: return
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    exhausted(errno: e)
                    return
                default:
                    logger.warning("accept failed", metadata: ["errno": "\(e)"])
                    return
                }
            }
            backoff.succeeded()
            accepted.add(1)
            if open.current >= configuration.maxConnections {
                rejected.add(1)
                onReject?()
                Glibc.close(fd)
                continue
            }
            open.add(1)
            _ = CSwitchboardSys_set_nodelay(fd)
            let loop = group.nextLoop()
            let tls = self.tls
            let makeHandler = self.makeHandler
            let open = self.open
            let logger = self.logger
            loop.execute {
                let connection = Connection(fd: fd, loop: loop)
                connection.listenerOpenCount = open
                if let tls {
                    do { connection.tls = try TLSConnection(context: tls) } catch {
                        logger.debug("TLS setup failed", metadata: ["error": "\(error)"])
                        connection.close(error: error)
                        return
                    }
                }
                do {
                    try loop.register(connection, events: connection.interest)
                } catch {
                    Glibc.close(fd)
                    open.add(-1)
                    connection.markClosedWithoutRegistration()
                    return
                }
                let handler = makeHandler(connection)
                connection.handler = handler
                handler.connectionDidOpen(connection)
            }
        }
    }

    private func exhausted(errno e: Int32) {
        guard let source else { return }
        let pause = backoff.exhausted()
        let now = EventLoop.now()
        if now &- lastExhaustionLog > 5_000_000_000 {
            lastExhaustionLog = now
            logger.warning(
                "out of file descriptors: pausing accept",
                metadata: ["errno": "\(e)", "pause_ms": "\(pause / 1_000_000)", "open": "\(open.current)"])
        }
        suspended = true
        source.suspend()
        acceptQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(pause))) { [self] in
            guard suspended, let source = self.source else { return }
            suspended = false
            if !stopped { source.resume() }
        }
    }

    static func bindListen(_ configuration: TransportConfiguration) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICHOST
        var result: UnsafeMutablePointer<addrinfo>?
        let rc = getaddrinfo(configuration.host, String(configuration.port), &hints, &result)
        guard rc == 0, let info = result else {
            throw IOError(errno: EINVAL, function: "getaddrinfo(\(configuration.host))")
        }
        defer { freeaddrinfo(result) }
        let fd = socket(
            info.pointee.ai_family,
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError(errno: errno, function: "socket") }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if configuration.reusePort { _ = CSwitchboardSys_set_reuseport(fd) }
        guard bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw IOError(errno: e, function: "bind(\(configuration.host):\(configuration.port))")
        }
        guard listen(fd, configuration.backlog) == 0 else {
            let e = errno
            Glibc.close(fd)
            throw IOError(errno: e, function: "listen")
        }
        return fd
    }

    static func boundPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return withUnsafePointer(to: &storage) { p -> Int in
            if Int32(p.pointee.ss_family) == AF_INET6 {
                return p.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    Int(UInt16(bigEndian: $0.pointee.sin6_port))
                }
            }
            return p.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                Int(UInt16(bigEndian: $0.pointee.sin_port))
            }
        }
    }
}
