//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
public import SwitchboardProtocol
public import SwitchboardTransport
import SwitchboardWebSocket

/// A client of Switchboard's protocol v1 over one WebSocket (`ws://` or `wss://`), on Switchboard's own
/// transport.
///
/// - Requests: `request(op:params:)` (and the typed methods in the extensions) send a request and await its
///   reply, matched by id; each has a timeout and fails with a typed `SwitchboardClientError`.
/// - Events: `events` yields every server event, connection changes and resume results, in order.
/// - Reconnect: after the connection drops, the client reconnects with exponential backoff and jitter, and
///   when it holds a session token it sends `authenticate {token, resume: true}` and `sync {since}` back to
///   back, so the `message` events continue with nothing lost and nothing twice (it also drops, by
///   (conversation, seq), any message it has given before). Requests made meanwhile wait for the
///   re-authentication (up to their timeouts); requests that were on the wire are resent when their op is
///   safe to repeat (reads, `messages.send` with a `client_id`, ...) and fail with `.connectionLost` otherwise.
///
/// Thread safety: every method may be called from any thread or task. All mutable state is confined to
/// one serial queue, the queue of the client's `EventLoop` (the transport delivers the socket's callbacks
/// there too); public methods hop onto it. `events` is a single-consumer stream.
public final class SwitchboardClient: @unchecked Sendable {
    // @unchecked Sendable: every mutable field below is protected by `loop.queue` (each entry point asserts it
    // with `dispatchPrecondition` through `loop.assertOnLoop()`); the rest is immutable or thread-safe
    // (`AsyncStream.Continuation`, `RequestIDs`).

    /// The configuration it was created with.
    public let configuration: ClientConfiguration
    /// Everything the server pushes, plus connection changes, in order. One consumer; buffered without
    /// bound (messages are never dropped), so consume it.
    public let events: AsyncStream<ClientEvent>
    /// The loop whose queue owns this client's state and socket.
    public let loop: EventLoop

    private let eventSink: AsyncStream<ClientEvent>.Continuation
    private let ownedGroup: EventLoopGroup?
    private let logger: Logger
    private let ids = RequestIDs()
    private let webSocketConfiguration: WebSocketConfiguration

    // protected by loop.queue
    private var phase: Phase = .idle
    // protected by loop.queue
    private var socket: ClientSocket?
    // protected by loop.queue
    private var generation: UInt64 = 0
    // protected by loop.queue: index into `configuration.endpoints` of the server the current (or next)
    // connection attempt goes to; moves to the next one in turn each time a connection ends
    private var endpointIndex = 0
    // protected by loop.queue: requests sent on the current connection, by id
    private var inFlight: [Int64: PendingRequest] = [:]
    // protected by loop.queue: requests waiting for a connection or a re-authentication, in order
    private var waiting: [PendingRequest] = []
    // protected by loop.queue
    private var session: Session?
    // protected by loop.queue: whether the current connection is authenticated
    private var authenticatedHere = false
    // protected by loop.queue
    private var tracker = ResumeTracker()
    // protected by loop.queue
    private var backoff: ReconnectBackoff
    // protected by loop.queue: `connect()` calls waiting for the WebSocket to open
    private var connectWaiters: [@Sendable (Result<Void, SwitchboardClientError>) -> Void] = []
    // protected by loop.queue
    private var connectTimer: DispatchWorkItem?
    // protected by loop.queue
    private var reconnectTimer: DispatchWorkItem?
    // protected by loop.queue: the last state reported on `events`
    private var reportedState: ConnectionState = .disconnected
    // protected by loop.queue: `logout` succeeded; the server's close ends the client
    private var loggingOut = false
    // protected by loop.queue: the server announced `session.revoked`; its close 4001 follows
    private var revoked = false
    // protected by loop.queue: a message arrived over a gap while a `sync` ran: check for gaps when it ends
    private var gapSyncWanted = false

    private enum Phase: Equatable {
        /// Not connected and not trying.
        case idle
        /// A connection attempt runs.
        case connecting
        /// The WebSocket is open.
        case open
        /// Open, re-authenticating with the stored token: user requests wait.
        case resuming
        /// The connection dropped; a timer starts the next attempt.
        case waitingToReconnect
        /// Stopped for good.
        case closed(CloseReason)
    }

    /// The session the client re-authenticates with.
    private struct Session {
        var token: String
        var userId: Int64
        var sessionId: Int64
    }

    /// Creates a client; nothing happens on the network until `connect()` or a request.
    /// - Parameters:
    ///   - configuration: the server and the client's policies.
    ///   - loop: the event loop to run on (share one among many clients, as the load tester does); nil
    ///     creates a private one-loop group, shut down by `close()`.
    public init(configuration: ClientConfiguration, loop: EventLoop? = nil) throws {
        self.configuration = configuration
        logger = configuration.logger
        if let loop {
            self.loop = loop
            ownedGroup = nil
        } else {
            let group = try EventLoopGroup(loopCount: 1, logger: configuration.logger)
            ownedGroup = group
            self.loop = group.loops[0]
        }
        (events, eventSink) = AsyncStream.makeStream(of: ClientEvent.self, bufferingPolicy: .unbounded)
        backoff = ReconnectBackoff(policy: configuration.reconnect)
        var ws = WebSocketConfiguration()
        ws.maxFrameSize = configuration.maxMessageSize
        ws.maxMessageSize = configuration.maxMessageSize
        // Timers are checked at the loop's sweep (once a second): the idle timeout leaves room for a ping
        // sent at one sweep and its pong to arrive before the next two.
        let pingInterval = max(configuration.pingInterval, 0.1)
        ws.pingInterval = UInt64(pingInterval * 1e9)
        ws.idleTimeout = UInt64(max(configuration.idleTimeout, pingInterval + 2) * 1e9)
        webSocketConfiguration = ws
    }

    /// A client for `url` (`ws://host:port/ws` or `wss://...`) with default settings.
    /// - Throws: `SwitchboardClientError.connectFailed` for a URL that is not `ws://` or `wss://`.
    public convenience init(url: String) throws {
        guard let configuration = ClientConfiguration(url: url) else {
            throw SwitchboardClientError.connectFailed("not a ws:// or wss:// URL: \(url)")
        }
        try self.init(configuration: configuration)
    }

    deinit {
        eventSink.finish()
        ownedGroup?.shutdown()
    }

    // MARK: - Public API

    /// Opens the connection (TCP, TLS for `wss`, the WebSocket upgrade). Returns at once when it is open.
    /// Requests also connect on demand, so calling this first is optional; it reports connection errors early.
    /// - Throws: `.connectFailed` when this attempt fails (no automatic retry for it), `.closed` after `close()`.
    public func connect() async throws(SwitchboardClientError) {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<Void, SwitchboardClientError>, Never>) in
            loop.execute { [self] in
                loop.assertOnLoop()
                switch phase {
                case .closed(let reason):
                    continuation.resume(returning: .failure(.closed(reason)))
                case .open, .resuming:
                    continuation.resume(returning: .success(()))
                case .connecting:
                    connectWaiters.append { continuation.resume(returning: $0) }
                case .idle, .waitingToReconnect:
                    connectWaiters.append { continuation.resume(returning: $0) }
                    startAttempt()
                }
            }
        }
        try result.get()
    }

    /// Sends a request and awaits its reply.
    /// - Parameters:
    ///   - op: the op name (`friends.list`, `messages.send`, `call.invite`, ...).
    ///   - params: the parameters as an encodable value (snake_case keys on the wire), e.g. a `JSONValue`
    ///     object literal.
    ///   - timeout: seconds to wait for the reply, including time waiting for a connection (default
    ///     `configuration.requestTimeout`).
    ///   - resendable: whether the request may be resent on a new connection if the old one dropped before
    ///     the reply (default: true for ops that are safe to repeat; `messages.send` only with a `client_id`).
    /// - Returns: the reply's `ok` object; decode it with `decode(_:)`.
    /// - Throws: `SwitchboardClientError`: `.server` with the server's error code and message, `.timeout`,
    ///   `.connectionLost`, `.closed`, `.invalidMessage`, `.cancelled`.
    @discardableResult
    public func request(
        op: String, params: some Encodable & Sendable = JSONValue.object([:]), timeout: Double? = nil,
        resendable: Bool? = nil
    ) async throws(SwitchboardClientError) -> ReplyPayload {
        let id = ids.next()
        let frame = try Self.encodeRequest(id: id, op: op, params: params)
        return try await submit(
            id: id, op: op, frame: frame, timeout: timeout, resendable: resendable ?? Self.isResendable(op))
    }

    /// Sends `op` with its parameters and decodes its result: the op's types come from its declaration in
    /// `SwitchboardProtocol` (`Ops.MessagesSend`, ...), shared with the server.
    /// - Parameter resendable: whether to resend after a reconnect that lost the reply (default: the op's
    ///   `idempotent` trait).
    @discardableResult
    public func send<Op: ProtocolOperation>(
        _ op: Op.Type, _ parameters: Op.Parameters, timeout: Double? = nil, resendable: Bool? = nil
    ) async throws(SwitchboardClientError) -> Op.Result {
        let id = ids.next()
        let frame = try Self.encodeRequest(id: id, op: Op.name, params: parameters)
        return try await submit(
            id: id, op: Op.name, frame: frame, timeout: timeout, resendable: resendable ?? Op.idempotent,
            authToken: (parameters as? Ops.Authenticate.Parameters)?.token,
            sendClientId: (parameters as? Ops.MessagesSend.Parameters)?.clientId
        ).decode(Op.Result.self)
    }

    /// Sends a request and decodes its result as `type`.
    public func request<Result: Decodable>(
        op: String, params: some Encodable & Sendable = JSONValue.object([:]), as type: Result.Type,
        timeout: Double? = nil, resendable: Bool? = nil
    ) async throws(SwitchboardClientError) -> Result {
        try await request(op: op, params: params, timeout: timeout, resendable: resendable).decode(type)
    }

    /// Closes the connection (close 1000) and stops the client for good: requests waiting fail with
    /// `.closed(.closedByUser)`, `events` finishes, and a private event loop is shut down.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.execute { [self] in
                terminate(.closedByUser)
                continuation.resume()
            }
        }
        if let group = ownedGroup {
            // Let the close frame go out before the loop stops.
            try? await Task.sleep(nanoseconds: 50_000_000)
            group.shutdown()
        }
    }

    /// The connection's state (as last reported on `events`).
    public var state: ConnectionState {
        get async { await onLoop { $0.reportedState } }
    }

    /// Per conversation, the seq after which messages are wanted on resume. Save it to resume in a later
    /// process with `authenticate(token:resumeFrom:)`.
    public var resumePoints: [Int64: Int64] {
        get async { await onLoop { $0.tracker.resumePoints } }
    }

    /// Message events dropped because they had been given before (a measure for tests and tools).
    public var duplicatesDropped: Int {
        get async { await onLoop { $0.tracker.duplicatesDropped } }
    }

    /// The server the current (or next) connection attempt goes to: `configuration.endpoint` unless
    /// `configuration.alternateEndpoints` are given and a connection has ended since.
    public var currentEndpoint: ServerEndpoint {
        get async { await onLoop { $0.configuration.endpoints[$0.endpointIndex] } }
    }

    /// The stored session token (nil before `register`, `login` or `authenticate`, and after `logout`).
    public var sessionToken: String? {
        get async { await onLoop { $0.session?.token } }
    }

    /// Drops the current connection without a closing handshake, as a network failure would; the client
    /// then reconnects according to its policy. For tests and tools.
    public func dropConnection() async {
        await onLoop { client in client.socket?.abort(reason: "dropped by dropConnection()") }
    }

    // MARK: - Submitting requests (any thread)

    private func submit(
        id: Int64, op: String, frame: [UInt8], timeout: Double?, resendable: Bool, authToken: String? = nil,
        resumeFrom: [Int64: Int64]? = nil, sendClientId: String? = nil
    ) async throws(SwitchboardClientError) -> ReplyPayload {
        let timeout = timeout ?? configuration.requestTimeout
        if Task.isCancelled { throw .cancelled }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation {
                (continuation: CheckedContinuation<Result<ReplyPayload, SwitchboardClientError>, Never>) in
                let pending = PendingRequest(
                    id: id, op: op, frame: frame, resendable: resendable, kind: .user,
                    completion: { continuation.resume(returning: $0) })
                pending.authToken = authToken
                pending.resumeFrom = resumeFrom
                pending.sendClientId = sendClientId
                loop.execute { [self] in enqueue(pending, timeout: timeout) }
            }
        } onCancel: {
            loop.execute { [self] in finish(id: id, with: .failure(.cancelled)) }
        }
        return try result.get()
    }

    /// `authenticate {token, resume: true}` followed at once by `sync {since: points}` (used by
    /// `authenticate(token:resumeFrom:)`).
    func submitAuthenticateAndResume(token: String, points: [Int64: Int64], timeout: Double?)
        async throws(SwitchboardClientError)
        -> ReplyPayload
    {
        let id = ids.next()
        let frame = try Self.encodeRequest(
            id: id, op: Ops.Authenticate.name, params: Ops.Authenticate.Parameters(token: token, resume: true))
        return try await submit(
            id: id, op: "authenticate", frame: frame, timeout: timeout, resendable: false, authToken: token,
            resumeFrom: points)
    }

    private func onLoop<T: Sendable>(_ body: @escaping @Sendable (SwitchboardClient) -> T) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            loop.execute { [self] in continuation.resume(returning: body(self)) }
        }
    }

    static func encodeRequest(id: Int64, op: String, params: some Encodable) throws(SwitchboardClientError) -> [UInt8] {
        let body: Data
        do {
            body = try WireCoding.encoder().encode(params)
        } catch {
            throw .invalidMessage("parameters of \(op): \(error)")
        }
        guard body.first == UInt8(ascii: "{"), body.last == UInt8(ascii: "}") else {
            throw .invalidMessage("the parameters of \(op) must encode as a JSON object")
        }
        let opJSON = (try? JSONEncoder().encode(op)).map { Array($0) } ?? Array("\"\"".utf8)
        var frame = Array("{\"id\":\(id),\"op\":".utf8) + opJSON
        if body.count > 2 {
            frame.append(UInt8(ascii: ","))
            frame.append(contentsOf: body.dropFirst())
        } else {
            frame.append(UInt8(ascii: "}"))
        }
        return frame
    }

    /// Ops that may be resent on a new connection when the old one dropped before their reply: reads, and
    /// writes that are idempotent on the server (the ops' `idempotent` trait, `ProtocolSchema`).
    static func isResendable(_ op: String) -> Bool {
        ProtocolSchema.traits(named: op)?.idempotent ?? false
    }

    // MARK: - Requests (on the loop)

    private func enqueue(_ pending: PendingRequest, timeout: Double) {
        loop.assertOnLoop()
        if case .closed(let reason) = phase {
            pending.complete(.failure(.closed(reason)))
            return
        }
        let timer = DispatchWorkItem { [weak self, id = pending.id] in
            self?.finish(id: id, with: .failure(.timeout(op: pending.op)))
        }
        pending.timer = timer
        loop.queue.asyncAfter(deadline: .now() + max(timeout, 0), execute: timer)
        if let points = pending.resumeFrom {
            // The caller's authenticate starts a resumed session: the tracker starts from its points.
            tracker = ResumeTracker(resumePoints: points)
        }
        if phase == .open, let socket {
            send(pending, on: socket)
            if pending.resumeFrom != nil {
                sendInternal(op: Ops.Sync.name, params: Ops.Sync.Parameters(since: tracker.resumePoints), kind: .sync)
            }
            return
        }
        guard waiting.count < configuration.maxQueuedRequests else {
            finish(pending, with: .failure(.tooManyQueuedRequests))
            return
        }
        waiting.append(pending)
        if phase == .idle { startAttempt() }
    }

    private func send(_ pending: PendingRequest, on socket: ClientSocket) {
        loop.assertOnLoop()
        inFlight[pending.id] = pending
        socket.send(pending.frame)
    }

    /// A request of the client itself (re-authentication, resume, baseline); its reply is handled in
    /// `internalReply`.
    private func sendInternal(op: String, params: some Encodable, kind: PendingRequest.Kind) {
        loop.assertOnLoop()
        guard let socket else { return }
        let id = ids.next()
        guard let frame = try? Self.encodeRequest(id: id, op: op, params: params) else { return }
        let pending = PendingRequest(id: id, op: op, frame: frame, resendable: false, kind: kind, completion: { _ in })
        let timer = DispatchWorkItem { [weak self] in
            // An internal request without a reply: the connection is not healthy; start over.
            guard let self, self.inFlight[id] != nil else { return }
            self.logger.debug("internal request timed out", metadata: ["switchboard.client.op": "\(op)"])
            self.socket?.abort(reason: "\(op) timed out")
        }
        pending.timer = timer
        // A catch-up of many messages takes longer than a request; each one that does not finish still
        // moves the resume points forward.
        let limit = kind == .sync ? configuration.requestTimeout * 4 : configuration.requestTimeout
        loop.queue.asyncAfter(deadline: .now() + limit, execute: timer)
        send(pending, on: socket)
    }

    /// Completes the request `id` (in flight or waiting), once.
    private func finish(id: Int64, with result: Result<ReplyPayload, SwitchboardClientError>) {
        loop.assertOnLoop()
        if let pending = inFlight.removeValue(forKey: id) {
            finish(pending, with: result)
        } else if let index = waiting.firstIndex(where: { $0.id == id }) {
            finish(waiting.remove(at: index), with: result)
        }
    }

    private func finish(_ pending: PendingRequest, with result: Result<ReplyPayload, SwitchboardClientError>) {
        pending.timer?.cancel()
        pending.timer = nil
        pending.complete(result)
    }

    private func flushWaiting() {
        loop.assertOnLoop()
        guard let socket else { return }
        let batch = waiting
        waiting = []
        for pending in batch {
            send(pending, on: socket)
            if pending.resumeFrom != nil {
                sendInternal(op: Ops.Sync.name, params: Ops.Sync.Parameters(since: tracker.resumePoints), kind: .sync)
            }
        }
    }

    // MARK: - Connection lifecycle (on the loop)

    private func startAttempt() {
        loop.assertOnLoop()
        reconnectTimer?.cancel()
        reconnectTimer = nil
        generation += 1
        let generation = self.generation
        phase = .connecting
        report(.connecting)
        let endpoint = configuration.endpoints[endpointIndex]
        let socket = ClientSocket(
            generation: generation, loop: loop, endpoint: endpoint, offerDeflate: configuration.offerCompression,
            webSocketConfiguration: webSocketConfiguration)
        socket.delegate = self
        self.socket = socket
        let timer = DispatchWorkItem { [weak self] in
            guard let self, self.generation == generation, self.phase == .connecting else { return }
            socket.abort(reason: "no connection within \(self.configuration.connectTimeout) s")
        }
        connectTimer = timer
        loop.queue.asyncAfter(deadline: .now() + configuration.connectTimeout, execute: timer)
        let tls: TLSContext?
        if endpoint.secure {
            if let configured = configuration.tls {
                tls = configured
            } else {
                do {
                    tls = try TLSContext(clientWithCAFile: nil, verify: true)
                } catch {
                    socket.abort(reason: "TLS: \(error)")
                    return
                }
            }
        } else {
            tls = nil
        }
        let serverName =
            configuration.serverName
            ?? (endpoint.secure && !HostResolver.isNumeric(endpoint.host) ? endpoint.host : nil)
        if HostResolver.isNumeric(endpoint.host) {
            socket.start(address: endpoint.host, tls: tls, serverName: serverName)
        } else {
            let host = endpoint.host
            DispatchQueue.global().async { [weak self] in
                let address = HostResolver.resolve(host)
                self?.loop.execute { [weak self] in
                    guard let self, self.generation == generation, self.phase == .connecting else { return }
                    if let address {
                        socket.start(address: address, tls: tls, serverName: serverName)
                    } else {
                        socket.abort(reason: "cannot resolve \(host)")
                    }
                }
            }
        }
    }

    private func socketOpened(_ socket: ClientSocket) {
        loop.assertOnLoop()
        connectTimer?.cancel()
        connectTimer = nil
        phase = .open
        let waiters = connectWaiters
        connectWaiters = []
        for waiter in waiters { waiter(.success(())) }
        if let session {
            // Re-authenticate, and resume right behind it: the server holds live messages from the
            // authentication until this sync's catch-up is sent.
            phase = .resuming
            report(.authenticating)
            let resume = configuration.resumeMessages
            sendInternal(
                op: Ops.Authenticate.name, params: Ops.Authenticate.Parameters(token: session.token, resume: resume),
                kind: .reauthenticate)
            if resume {
                sendInternal(op: Ops.Sync.name, params: Ops.Sync.Parameters(since: tracker.resumePoints), kind: .sync)
            }
        } else {
            backoff.reset()
            report(.connected)
            flushWaiting()
        }
    }

    private func socketEnded(_ socket: ClientSocket, _ end: SocketEnd) {
        loop.assertOnLoop()
        connectTimer?.cancel()
        connectTimer = nil
        self.socket = nil
        authenticatedHere = false
        if case .closed = phase { return }
        logger.debug("connection ended", metadata: ["switchboard.client.reason": "\(end)"])
        // Failover: the next attempt goes to the next server in turn (a no-op with one).
        endpointIndex = (endpointIndex + 1) % configuration.endpoints.count
        if end.wasOpen { eventSink.yield(.disconnected(reason: end.description)) }
        // Requests on the wire: resend those that are safe to repeat, fail the others.
        let sent = inFlight.values.sorted { $0.id < $1.id }
        inFlight = [:]
        var requeue: [PendingRequest] = []
        for pending in sent {
            switch pending.kind {
            case .user where pending.resendable: requeue.append(pending)
            case .user: finish(pending, with: .failure(.connectionLost(op: pending.op)))
            default: pending.timer?.cancel()
            }
        }
        waiting = requeue + waiting
        let waiters = connectWaiters
        connectWaiters = []
        for waiter in waiters { waiter(.failure(.connectFailed(end.description))) }

        if loggingOut {
            terminate(.loggedOut)
            return
        }
        // 4005: the account was deleted; its sessions are revoked too.
        if end.closeCode == ProtocolCloseCode.sessionRevoked.rawValue || end.closeCode == AccountEvents.closeCode
            || revoked
        {
            session = nil
            terminate(.sessionRevoked)
            return
        }
        if end.closeCode == ModerationCloseCode.accountSuspended {
            session = nil
            terminate(.accountSuspended)
            return
        }
        guard configuration.reconnect.enabled, session != nil || !waiting.isEmpty else {
            phase = .idle
            for pending in waiting { finish(pending, with: .failure(.connectFailed(end.description))) }
            waiting = []
            report(.disconnected)
            return
        }
        switch backoff.next(random: Double.random(in: 0..<1)) {
        case .giveUp:
            terminate(.reconnectFailed)
        case .retry(let delay, let attempt):
            phase = .waitingToReconnect
            report(.reconnecting(attempt: attempt, delay: delay))
            let timer = DispatchWorkItem { [weak self] in
                guard let self, self.phase == .waitingToReconnect else { return }
                self.startAttempt()
            }
            reconnectTimer = timer
            loop.queue.asyncAfter(deadline: .now() + delay, execute: timer)
        }
    }

    /// Stops for good: fails every request, closes the socket, finishes `events`.
    private func terminate(_ reason: CloseReason) {
        loop.assertOnLoop()
        if case .closed = phase { return }
        phase = .closed(reason)
        reconnectTimer?.cancel()
        reconnectTimer = nil
        connectTimer?.cancel()
        connectTimer = nil
        let all = inFlight.values.sorted { $0.id < $1.id } + waiting
        inFlight = [:]
        waiting = []
        for pending in all { finish(pending, with: .failure(.closed(reason))) }
        let waiters = connectWaiters
        connectWaiters = []
        for waiter in waiters { waiter(.failure(.closed(reason))) }
        if let socket {
            socket.delegate = nil
            socket.close()
            self.socket = nil
        }
        report(.closed(reason))
        eventSink.finish()
    }

    private func report(_ state: ConnectionState) {
        loop.assertOnLoop()
        guard state != reportedState else { return }
        reportedState = state
        eventSink.yield(.state(state))
    }

    // MARK: - Incoming frames (on the loop)

    private func received(_ text: [UInt8]) {
        loop.assertOnLoop()
        let receivedAt = EventLoop.now()
        let frame: IncomingFrame
        do {
            frame = try IncomingFrame.decode(text, receivedAt: receivedAt)
        } catch {
            logger.debug("undecodable frame from the server", metadata: ["switchboard.client.error": "\(error)"])
            return
        }
        switch frame {
        case .event(let event):
            handle(event)
        case .reply(let id, let payload):
            guard case .int(let n) = id, let pending = inFlight.removeValue(forKey: n) else { return }
            pending.timer?.cancel()
            pending.timer = nil
            replied(pending, .success(payload))
        case .error(let id, let error):
            guard let id, case .int(let n) = id, let pending = inFlight.removeValue(forKey: n) else {
                logger.debug("error reply without a request", metadata: ["switchboard.client.error": "\(error)"])
                return
            }
            pending.timer?.cancel()
            pending.timer = nil
            replied(pending, .failure(.server(error)))
        }
    }

    private func handle(_ event: ClientEvent) {
        switch event {
        case .message(let message):
            if acknowledgesPendingSend(message) { return }
            guard tracker.observe(conversationId: message.conversationId, seq: message.seq) else { return }
            if tracker.hasGap(conversationId: message.conversationId, below: message.seq) { syncGap() }
        case .account(.sessionRevoked(let e)):
            if e.sessionId == session?.sessionId { revoked = true }
        default:
            break
        }
        eventSink.yield(event)
    }

    /// A message event arrived over a gap (a seq before it is missing): `sync {since}` from the resume points, so
    /// the server sends the missing messages as events (in seq order; the ones already given are dropped by the
    /// tracker). One sync at a time (the server refuses a second): a gap seen while one runs is checked again
    /// when it ends.
    private func syncGap() {
        loop.assertOnLoop()
        guard session != nil, authenticatedHere, phase == .open else { return }
        if inFlight.values.contains(where: { $0.op == Ops.Sync.name })
            || waiting.contains(where: { $0.op == Ops.Sync.name })
        {
            gapSyncWanted = true
            return
        }
        logger.debug("a message arrived over a gap; syncing")
        sendInternal(op: Ops.Sync.name, params: Ops.Sync.Parameters(since: tracker.resumePoints), kind: .gapSync)
    }

    /// A `sync` ended (the client's or the application's): sync again if a gap was seen meanwhile and remains.
    private func syncEnded() {
        loop.assertOnLoop()
        guard gapSyncWanted else { return }
        gapSyncWanted = false
        if tracker.hasAnyGap { syncGap() }
    }

    /// A message of ours that a catch-up brought while our `messages.send` of it still waits for its reply (the
    /// connection dropped after the server stored it and before the acknowledgement arrived): the message is
    /// the acknowledgement. The send completes with it and the event is not given, as the sending connection
    /// never gets an event for its own message; the reply to the resent request, if it comes, is ignored.
    private func acknowledgesPendingSend(_ message: Message) -> Bool {
        loop.assertOnLoop()
        guard let clientId = message.clientId, let me = session?.userId, message.senderId == me else { return false }
        let pending: PendingRequest
        if let inFlightSend = inFlight.values.first(where: { $0.sendClientId == clientId }) {
            inFlight[inFlightSend.id] = nil
            pending = inFlightSend
        } else if let index = waiting.firstIndex(where: { $0.sendClientId == clientId }) {
            pending = waiting.remove(at: index)
        } else {
            return false
        }
        tracker.acknowledge(conversationId: message.conversationId, seq: message.seq)
        let ack = SendAck(
            messageId: message.id, conversationId: message.conversationId, seq: message.seq, ts: message.ts)
        let body = (try? WireCoding.encoder().encode(ack)).map { Array($0) } ?? []
        finish(
            pending,
            with: .success(
                ReplyPayload(frame: Array("{\"id\":\(pending.id),\"ok\":".utf8) + body + [UInt8(ascii: "}")])))
        return true
    }

    private func replied(_ pending: PendingRequest, _ result: Result<ReplyPayload, SwitchboardClientError>) {
        loop.assertOnLoop()
        defer { if pending.op == Ops.Sync.name { syncEnded() } }
        switch pending.kind {
        case .user:
            if case .success(let payload) = result { observeUserReply(pending, payload) }
            pending.complete(result)
        case .reauthenticate:
            switch result {
            case .success(let payload):
                authenticatedHere = true
                backoff.reset()
                phase = .open
                let userId = (try? payload.decode(AuthenticateResult.self).userId) ?? session?.userId ?? 0
                report(.authenticated(userId: userId))
                flushWaiting()
            case .failure(.server(let error)) where error.errorCode == .invalidToken:
                session = nil
                terminate(.sessionRevoked)
            case .failure(.server(let error)) where error.errorCode == .accountSuspended:
                session = nil
                terminate(.accountSuspended)
            case .failure(let error):
                logger.debug("re-authentication failed", metadata: ["switchboard.client.error": "\(error)"])
                socket?.abort(reason: "re-authentication failed: \(error)")
            }
        case .sync:
            switch result {
            case .success(let payload):
                guard let summary = try? payload.decode(SyncSummary.self) else { return }
                for entry in summary.conversations {
                    tracker.advance(conversationId: entry.conversationId, to: entry.lastSeq)
                }
                eventSink.yield(.resumed(summary))
            case .failure(let error):
                // The server holds live messages until a sync finishes: start over rather than stall.
                logger.debug("resume failed", metadata: ["switchboard.client.error": "\(error)"])
                if session != nil { socket?.abort(reason: "sync failed: \(error)") }
            }
        case .gapSync:
            // Its catch-up came as events before the reply; a failure (a sync of the application's ran) is
            // retried at the next gap.
            guard case .success(let payload) = result, let summary = try? payload.decode(SyncSummary.self) else {
                return
            }
            for entry in summary.conversations {
                tracker.advance(conversationId: entry.conversationId, to: entry.lastSeq)
            }
        case .baseline:
            guard case .success(let payload) = result, let list = try? payload.decode(BaselineResult.self) else {
                return
            }
            for entry in list.conversations {
                tracker.setBaseline(conversationId: entry.conversationId, lastSeq: entry.lastSeq)
            }
        }
    }

    /// What the client learns from its user's replies: sessions, own messages, resume results.
    private func observeUserReply(_ pending: PendingRequest, _ payload: ReplyPayload) {
        switch pending.op {
        case "register", "login", "password.reset":
            guard let credentials = try? payload.decode(SessionCredentials.self) else { return }
            startSession(
                Session(token: credentials.sessionToken, userId: credentials.userId, sessionId: credentials.sessionId),
                resumed: false)
        case "authenticate":
            guard let token = pending.authToken, let result = try? payload.decode(AuthenticateResult.self) else {
                return
            }
            startSession(
                Session(token: token, userId: result.userId, sessionId: result.sessionId),
                resumed: pending.resumeFrom != nil)
        case "messages.send":
            guard let ack = try? payload.decode(SendAcknowledgement.self) else { return }
            tracker.acknowledge(conversationId: ack.conversationId, seq: ack.seq)
        case "sync":
            guard let summary = try? payload.decode(SyncSummary.self) else { return }
            for entry in summary.conversations {
                tracker.advance(conversationId: entry.conversationId, to: entry.lastSeq)
            }
        case "logout":
            session = nil
            loggingOut = true
        default:
            break
        }
    }

    private func startSession(_ new: Session, resumed: Bool) {
        loop.assertOnLoop()
        session = new
        authenticatedHere = true
        revoked = false
        backoff.reset()
        if phase == .resuming { phase = .open }
        report(.authenticated(userId: new.userId))
        if !resumed {
            tracker.reset()
            if configuration.establishBaseline {
                sendInternal(op: Ops.ConversationsList.name, params: Empty(), kind: .baseline)
            }
        }
    }
}

extension SwitchboardClient: ClientSocketDelegate {
    func socketDidOpen(_ socket: ClientSocket) {
        guard socket.generation == generation else { return }
        socketOpened(socket)
    }

    func socket(_ socket: ClientSocket, didReceive text: [UInt8]) {
        guard socket.generation == generation else { return }
        received(text)
    }

    func socket(_ socket: ClientSocket, didEnd end: SocketEnd) {
        guard socket.generation == generation, self.socket === socket else { return }
        socketEnded(socket, end)
    }
}

extension Ops.Sync.Parameters {
    /// `since` keyed by conversation id (JSON keys are strings).
    init(since: [Int64: Int64]) {
        var out: [String: Int64] = [:]
        for (c, seq) in since { out[String(c)] = seq }
        self.init(since: out)
    }
}
