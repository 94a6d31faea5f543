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
import SwitchboardCore
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport
import SwitchboardWebSocket

/// The services behind `/ws`.
final class ProtocolServices: Sendable {
    let accounts: AccountService
    let friends: FriendService
    let registry: SessionRegistry
    /// Where the engines' deliveries go: this process's loops.
    let outbox: LocalOutbox
    /// Events to users and sessions (registry + outbox), for the op handlers.
    let deliveries: Deliveries
    /// Call signalling.
    let calls: CallService
    /// Conversations and messages.
    let messages: MessageHub
    /// Presence.
    let presence: PresenceHub
    /// Voice uploads and downloads over HTTP.
    let voice: VoiceService
    /// Bytes a connection may queue (the transport's outbound limit).
    let outboundLimit: Int
    /// Requests a connection may send while its authentication runs (processed after it, in order).
    let maxQueuedDuringAuthentication = 32
    /// State-changing requests that may wait in a connection's ordered lane (`rate_limited` beyond).
    let maxWaitingRequests: Int
    /// Where request tasks run.
    let executor = DispatchTaskExecutor(label: "switchboard.requests")
    /// Seconds an unauthenticated connection may stay open.
    let authenticationTimeout: Double
    /// Registrations and contact look-ups per address and per account.
    let discovery: DiscoveryLimiter
    /// Requests a connection may have in flight before it stops being read (`RequestAdmission`).
    let maxRequestsInFlight: Int
    /// Admission gauges and the cancelled-task counter.
    let metrics: ServerMetrics
    /// Logs `internal` answers and counts error answers per op.
    let errors: InternalErrorReporter

    init(
        accounts: AccountService, friends: FriendService, pool: DatabasePool, configuration: ServerConfiguration,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.accounts = accounts
        self.friends = friends
        let registry = SessionRegistry()
        self.registry = registry
        let outbox = LocalOutbox()
        self.outbox = outbox
        deliveries = Deliveries(registry: registry, outbox: outbox)
        let messages = MessageHub(
            registry: registry, outbox: outbox, pool: pool, configuration: configuration.messaging, metrics: metrics, logger: logger)
        self.messages = messages
        self.calls = CallService(
            registry: registry, outbox: outbox, settings: configuration.calls, pool: pool, messages: messages, logger: logger)
        self.presence = PresenceHub(
            registry: registry, outbox: outbox, pool: pool, grace: configuration.messaging.presenceGrace, metrics: metrics, logger: logger)
        self.outboundLimit = configuration.maxOutboundBytes
        self.voice = VoiceService(configuration: configuration.voice, accounts: accounts, pool: pool, metrics: metrics, logger: logger)
        self.authenticationTimeout = configuration.authenticationTimeout
        self.discovery = DiscoveryLimiter(configuration.discoveryLimits)
        self.maxWaitingRequests = configuration.maxWaitingRequests
        self.maxRequestsInFlight = configuration.maxRequestsInFlight
        self.metrics = metrics
        self.errors = InternalErrorReporter(logger: logger, metrics: metrics.operations)
    }
}

/// One decoded request, from its decoding until it is answered or handed to its owner (admission control and
/// per-op metrics): its op and when it was decoded (`EventLoop.now()`).
struct RequestTicket: Sendable {
    let op: String
    let startedAt: UInt64
}

/// A result and its reply, encoded off the loop.
struct EncodedReply<R: Sendable>: Sendable {
    let value: R
    let bytes: [UInt8]
}

/// Called by a step of the ordered lane once its effect is in the hands of the object's owner; on the
/// connection's loop only (it asserts). A second call, or a call after the connection closed, does nothing.
typealias LaneDone = @Sendable () -> Void

/// The ordered lane of one connection: a FIFO of its state-changing requests (see
/// `ProtocolApplication.ordered(_:)`). Protected by the connection's loop queue.
struct OrderedLane {
    /// A step started and has not called its `done` yet.
    var busy = false
    /// Numbers the steps: only the running step's `done` moves the lane on.
    var ticket: UInt64 = 0
    /// Steps waiting behind the running one, oldest first from `head`.
    var waiting: [(@escaping LaneDone) -> Void] = []
    var head = 0
    /// `drain` runs (a step that finishes at once must not start the next one recursively).
    var draining = false
    /// The `done` of the step being started, until a `run` in it takes it over (`takeLaneDone`).
    var unclaimed: LaneDone?

    /// Steps waiting.
    var count: Int { waiting.count - head }
}

/// Protocol v1 on one connection. Lives on the connection's loop queue; service calls run as tasks and
/// come back to the loop to answer.
final class ProtocolApplication: WebSocketApplication {
    /// Strong: a reply or delivery loop may outlive the connection by a few calls (a write that fails closes it),
    /// and the session's `send` is a no-op once closed. The cycle (the session's phase holds this application)
    /// is broken when the connection closes and the session drops its phase.
    let session: HTTPSession
    /// The connection's loop (kept: the connection may be gone while a task still hops back here).
    let loop: EventLoop
    let services: ProtocolServices
    /// Addresses this connection in the outbox (engines never hold the object).
    let connectionId = ConnectionID.next()
    let openedAt: UInt64
    // protected by the connection's loop queue
    var identity: Identity?
    // protected by the connection's loop queue
    var authenticating = false
    // protected by the connection's loop queue
    var closed = false
    // protected by the connection's loop queue: requests that arrived while authenticating
    var queued: [(RequestEnvelope, RequestTicket?)] = []
    // protected by the connection's loop queue
    var messaging = ConnectionMessaging()
    // protected by the connection's loop queue
    var lane = OrderedLane()
    // protected by the connection's loop queue
    var admission: RequestAdmission
    // protected by the connection's loop queue: the request being dispatched, until work that answers it later
    // takes it over (`takeRequestTicket`); ended when the dispatch returns otherwise
    var currentRequest: RequestTicket?
    // protected by the connection's loop queue: `startHeld` runs (no recursion)
    var startingHeld = false

    init(session: HTTPSession, services: ProtocolServices) {
        self.session = session
        self.services = services
        openedAt = EventLoop.now()
        loop = session.connection.loop
        admission = RequestAdmission(limit: services.maxRequestsInFlight)
    }


    func session(_ session: HTTPSession, didReceiveBinary bytes: [UInt8]) {
        session.send(.text, ProtocolCodec.encodeError(id: nil, code: .badRequest, message: "protocol v1 uses JSON text frames"))
    }

    func session(_ session: HTTPSession, didReceiveText bytes: [UInt8]) {
        loop.assertOnLoop()
        guard admission.mayStart else {
            // Decoded from the read that reached the limit: started as earlier requests finish.
            admission.hold(bytes)
            return
        }
        start(bytes)
    }

    /// Starts one request: it is in flight until it is answered or handed on (`requestEnded`).
    private func start(_ bytes: [UInt8]) {
        admission.begin()
        services.metrics.requestsInFlight.increment()
        let envelope: RequestEnvelope
        switch ProtocolCodec.decodeEnvelope(bytes) {
        case .failure(let error):
            let ticket = RequestTicket(op: OperationMetrics.unknownOp, startedAt: EventLoop.now())
            services.metrics.operations.received(ticket.op)
            services.errors.answered(op: ticket.op, code: error.code, underlying: nil, userId: identity?.userId, connectionId: session.connection.id)
            session.send(.text, ProtocolCodec.encodeError(id: error.id, code: error.code, message: error.message))
            requestEnded(ticket)
            return
        case .success(let e): envelope = e
        }
        services.metrics.operations.received(envelope.op)
        currentRequest = RequestTicket(op: envelope.op, startedAt: EventLoop.now())
        dispatch(envelope)
        if let ticket = takeRequestTicket() { requestEnded(ticket) }
        if admission.shouldPause() {
            session.connection.pauseReading()
            services.metrics.connectionsReadPaused.increment()
        }
    }

    /// The request being dispatched, for work that answers it later (it must call `requestEnded` on the loop);
    /// nil outside a dispatch or once taken.
    func takeRequestTicket() -> RequestTicket? {
        defer { currentRequest = nil }
        return currentRequest
    }

    /// A request was answered or handed to its owner: records its duration, starts held requests, resumes reading.
    func requestEnded(_ ticket: RequestTicket) {
        guard !closed else { return }
        admission.end()
        services.metrics.requestsInFlight.decrement()
        services.metrics.operations.finished(ticket.op, nanoseconds: EventLoop.now() &- ticket.startedAt)
        startHeld()
    }

    /// Starts held requests while the limit allows, then resumes reading when nothing is held.
    private func startHeld() {
        guard !startingHeld else { return }
        startingHeld = true
        defer { startingHeld = false }
        while !closed, let frame = admission.nextHeld() { start(frame) }
        if !closed && admission.shouldResume() {
            session.connection.resumeReading()
            services.metrics.connectionsReadPaused.decrement()
        }
    }

    /// Sends an error answer to the request being dispatched (counted per op; `internal` logged with its cause).
    func sendError(
        _ id: RequestID?, op: String?, _ code: ErrorCode, _ message: String, extra: [String: Int64] = [:],
        reason: String? = nil, underlying: (any Error)? = nil
    ) {
        services.errors.answered(
            op: op ?? currentRequest?.op ?? OperationMetrics.unknownOp, code: code, underlying: underlying,
            userId: identity?.userId, connectionId: session.connection.id)
        session.send(.text, ProtocolCodec.encodeError(id: id, code: code, message: message, extra: extra, reason: reason))
    }

    private func dispatch(_ envelope: RequestEnvelope) {
        if authenticating {
            // Pipelined behind an authentication: processed after it, in order.
            guard queued.count < services.maxQueuedDuringAuthentication else {
                sendError(envelope.id, op: envelope.op, .rateLimited, "too many requests during authentication")
                return
            }
            queued.append((envelope, takeRequestTicket()))
            return
        }
        guard let identity else {
            handleUnauthenticated(envelope)
            return
        }
        handle(envelope, identity: identity)
    }

    /// Processes requests that waited for an authentication.
    private func processQueued() {
        while !authenticating && !queued.isEmpty && !closed {
            let (envelope, ticket) = queued.removeFirst()
            currentRequest = ticket
            dispatch(envelope)
            if let ticket = takeRequestTicket() { requestEnded(ticket) }
        }
    }

    func sessionDidClose(_ session: HTTPSession) {
        closed = true
        // Waiting steps are never run (their requests get no reply, so the client cannot rely on them).
        lane.waiting = []
        lane.head = 0
        queued = []
        // Request tasks are cancelled: one still waiting for a database connection never runs its body; one whose
        // body (a transaction) started finishes it, and effects already handed to an owner complete.
        let cancelled = admission.close()
        if cancelled > 0 { services.metrics.requestsCancelled.increment(by: cancelled) }
        if admission.inFlight > 0 { services.metrics.requestsInFlight.decrement(by: Double(admission.inFlight)) }
        if admission.paused { services.metrics.connectionsReadPaused.decrement() }
        if let identity {
            let device = self.device
            services.registry.remove(connectionId, userId: identity.userId)
            services.outbox.detach(connectionId)
            if let device { services.presence.deviceDisconnected(device) }
            callConnectionClosed(identity)
        }
        outboundDrained(open: false)
    }

    func sessionDidDrain(_ session: HTTPSession) {
        outboundDrained(open: true)
    }

    func session(_ session: HTTPSession, sweepAt now: UInt64) {
        if identity == nil && !authenticating && Double(now &- openedAt) >= services.authenticationTimeout * 1e9 {
            session.closeWebSocket(code: 4002, reason: "authentication timeout")
        }
    }

    // MARK: replies

    func sendEvent(_ bytes: [UInt8]) { session.send(.text, bytes) }

    func sessionRevoked() {
        session.send(.text, ProtocolCodec.encodeEvent("session.revoked", ["session_id": identity?.sessionId ?? 0]))
        session.closeWebSocket(code: 4001, reason: "session revoked")
    }

    /// Runs `work` off the loop and answers `id` with its result (or typed error) on the loop. The reply is
    /// encoded in the request task (history pages and conversation lists are large): the loop only sends bytes.
    func run<R: Encodable & Sendable>(
        _ id: RequestID,
        _ work: @escaping @Sendable () async throws(ServiceError) -> R,
        then: (@Sendable (ProtocolApplication, R) -> Void)? = nil
    ) {
        run(id, { () async throws(ServiceError) -> EncodedReply<R> in
            let value = try await work()
            return EncodedReply(value: value, bytes: ProtocolCodec.encodeReply(id: id, result: value))
        }, replyWith: { app, reply in
            then?(app, reply.value)
            app.session.send(.text, reply.bytes)
        })
    }

    /// Runs `work` off the loop; on success `replyWith` runs on the loop and is responsible for the reply, on
    /// failure the typed error is the reply.
    func run<R: Sendable>(
        _ id: RequestID,
        _ work: @escaping @Sendable () async throws(ServiceError) -> R,
        replyWith: @escaping @Sendable (ProtocolApplication, R) -> Void
    ) {
        let me = LoopBound(self, loop: loop)
        // Started by a step of the ordered lane: the lane waits for this work and its `replyWith` (which hands
        // the effect on, e.g. to a conversation's writer or the call queue).
        let done = takeLaneDone()
        // The request stays in flight until this work has answered it.
        let ticket = takeRequestTicket()
        let number = admission.taskNumber()
        let task = Task(executorPreference: services.executor) {
            let result: Result<R, ServiceError>
            // Cancelled (the connection closed) before it started: nothing to do, nobody to answer.
            if Task.isCancelled { return }
            do throws(ServiceError) { result = .success(try await work()) } catch { result = .failure(error) }
            me.execute { app in
                app.admission.finished(number)
                let wasAuthenticating = app.authenticating
                app.authenticating = false
                guard !app.closed else { return }
                switch result {
                case .success(let value):
                    replyWith(app, value)
                case .failure(let error):
                    app.sendError(
                        id, op: ticket?.op, error.code, error.message, extra: error.extra, reason: error.reason,
                        underlying: error.underlying)
                }
                done?()
                if let ticket { app.requestEnded(ticket) }
                if wasAuthenticating { app.processQueued() }
            }
        }
        // Only requests outside the ordered lane are cancelled with their connection: they are reads (or a whole
        // authentication, one transaction). A state-changing request runs to its end, so its effect is never left
        // half done (a stored profile whose friends were not told).
        if done == nil { admission.track(number, task) }
    }

    // MARK: the ordered lane

    /// State-changing ops: they take effect in the order the connection sent them (`docs/protocol.md`,
    /// Envelopes). Every other op is read-only and starts at once.
    static let orderedOps: Set<String> = [
        "logout", "sessions.revoke", "profile.update", "friends.request", "friends.accept", "friends.decline",
        "friends.cancel", "friends.remove", "call.invite", "call.accept", "call.decline", "call.cancel", "call.hangup",
        "call.signal", "messages.send", "messages.delete", "messages.hide", "conversations.read", "conversations.direct",
        "groups.create", "groups.add", "groups.leave", "groups.rename", "typing", "presence.set",
    ]

    /// Runs `step` in the connection's ordered lane: at once and synchronously if no step is ahead of it,
    /// otherwise after every earlier step has called its `done`. A step calls `done` (on the loop) once its
    /// effect is in the hands of the object's owner: the conversation writer's queue, the call queue, the
    /// presence queue, or a finished database write. Replies are not ordered by the lane.
    ///
    /// - Warning: the hot path (`messages.send` to a `conversation_id`) runs here: with nothing ahead it costs
    ///   no hop.
    func ordered(_ step: @escaping (@escaping LaneDone) -> Void) {
        if lane.busy || lane.count > 0 {
            lane.waiting.append(step)
            return
        }
        start(step)
    }

    private func start(_ step: (@escaping LaneDone) -> Void) {
        lane.busy = true
        lane.ticket &+= 1
        let ticket = lane.ticket
        let me = LoopBound(self, loop: loop)
        step({ me.valueOnLoop?.laneStepDone(ticket) })
    }

    private func laneStepDone(_ ticket: UInt64) {
        guard lane.busy, lane.ticket == ticket else { return }
        lane.busy = false
        drainLane()
    }

    /// Starts waiting steps until one of them is still running.
    private func drainLane() {
        guard !lane.draining else { return }
        lane.draining = true
        defer { lane.draining = false }
        while !lane.busy && lane.count > 0 && !closed {
            let step = lane.waiting[lane.head]
            lane.head += 1
            if lane.head == lane.waiting.count {
                lane.waiting.removeAll(keepingCapacity: true)
                lane.head = 0
            } else if lane.head >= 64 && lane.head * 2 >= lane.waiting.count {
                lane.waiting.removeFirst(lane.head)
                lane.head = 0
            }
            start(step)
        }
    }

    /// The `done` of the lane step being started, for work that finishes later (`run`); nil outside a step.
    /// Whoever takes it must call it; otherwise the step is done when its synchronous part returns.
    func takeLaneDone() -> LaneDone? {
        defer { lane.unclaimed = nil }
        return lane.unclaimed
    }

    /// Handles a request of an authenticated connection as a step of the ordered lane: synchronous hand-offs
    /// are done when `route` returns, work started with `run` when its reply has run on the loop.
    private func handleOrdered(_ envelope: RequestEnvelope, identity: Identity) {
        guard lane.count < services.maxWaitingRequests else {
            sendError(
                envelope.id, op: envelope.op, .rateLimited, "too many requests waiting on this connection",
                extra: ["retry_after_ms": 100])
            return
        }
        // In flight while it waits in the lane, too.
        let ticket = takeRequestTicket()
        ordered { [self] done in
            lane.unclaimed = done
            currentRequest = ticket
            route(envelope, identity: identity)
            takeLaneDone()?()
            if let ticket = takeRequestTicket() { requestEnded(ticket) }
        }
    }

    func fail(_ id: RequestID, _ error: ProtocolError) {
        sendError(id, op: nil, error.code, error.message)
    }

    func params<P: Decodable>(_ type: P.Type, _ envelope: RequestEnvelope) -> P? {
        switch ProtocolCodec.decodeParameters(type, from: envelope) {
        case .success(let p): return p
        case .failure(let e):
            fail(envelope.id, e)
            return nil
        }
    }

    // MARK: before authentication

    struct RegisterParams: Decodable {
        var phone: String
        var password: String
        var displayName: String
        var device: String
    }
    struct LoginParams: Decodable {
        var phone: String
        var password: String
        var device: String
    }
    struct AuthenticateParams: Decodable {
        var token: String
        /// The client will send `sync` next: live messages are held from authentication until that sync ends.
        var resume: Bool?
    }
    struct AuthenticateResult: Encodable, Sendable {
        var userId: Int64
        var sessionId: Int64
        var profile: Profile
    }

    private func handleUnauthenticated(_ envelope: RequestEnvelope) {
        let id = envelope.id
        let accounts = services.accounts
        let discovery = services.discovery
        let address = clientAddress
        let becomeAuthenticated: @Sendable (ProtocolApplication, Credentials) -> Void = { app, c in
            app.authenticated(Identity(userId: c.userId, sessionId: c.sessionId))
        }
        switch envelope.op {
        case "register":
            guard let p = params(RegisterParams.self, envelope) else { return }
            authenticating = true
            run(id, { () async throws(ServiceError) -> Credentials in
                if let refused = discovery.register(address: address, now: EventLoop.now()) { throw refused }
                return try await accounts.register(phone: p.phone, password: p.password, displayName: p.displayName, device: p.device)
            }, then: becomeAuthenticated)
        case "login":
            guard let p = params(LoginParams.self, envelope) else { return }
            authenticating = true
            run(id, { () async throws(ServiceError) -> Credentials in
                try await accounts.login(phone: p.phone, password: p.password, device: p.device, address: address, now: EventLoop.now())
            }, then: becomeAuthenticated)
        case "authenticate":
            guard let p = params(AuthenticateParams.self, envelope) else { return }
            authenticating = true
            run(id, { () async throws(ServiceError) -> AuthenticateResult in
                let (identity, profile) = try await accounts.authenticate(token: p.token)
                return AuthenticateResult(userId: identity.userId, sessionId: identity.sessionId, profile: profile)
            }, then: { app, r in
                if p.resume == true { app.messaging.holding = true }
                app.authenticated(Identity(userId: r.userId, sessionId: r.sessionId))
            })
        case let op where Self.knownOps.contains(op):
            sendError(id, op: envelope.op, .notAuthenticated, "authenticate, log in or register first")
        default:
            sendError(id, op: envelope.op, .unknownOp, "unknown op \(envelope.op.prefix(64))")
        }
    }

    /// The client's address without its port (the key of per-address limits).
    var clientAddress: String {
        session.connection.remoteAddress.split(separator: ":").dropLast().joined(separator: ":")
    }

    private func authenticated(_ identity: Identity) {
        self.identity = identity
        authenticating = false
        services.outbox.attach(connectionId, self, loop: loop)
        if let device { services.registry.add(device) }
        if let device { services.presence.deviceConnected(device) }
        callConnectionOpened(identity)
    }

    static let knownOps: Set<String> = Set<String>([
        "register", "login", "authenticate", "logout", "ping", "sessions.list", "sessions.revoke", "profile.get",
        "profile.update", "friends.request", "friends.accept", "friends.decline", "friends.cancel", "friends.remove",
        "friends.list", "friends.requests", "contacts.match",
    ]).union(callOps).union(messagingOps)

    // MARK: after authentication

    struct SessionParams: Decodable { var sessionId: Int64 }
    struct ProfileGetParams: Decodable { var userId: Int64? }
    struct ProfileUpdateParams: Decodable { var displayName: String }
    struct FriendRequestParams: Decodable {
        var phone: String?
        var userId: Int64?
    }
    struct RequestIDParams: Decodable { var requestId: Int64 }
    struct UserParams: Decodable { var userId: Int64 }
    struct ContactsParams: Decodable { var phones: [String] }
    struct SessionsResult: Encodable, Sendable { var sessions: [SessionInfo] }
    struct FriendsResult: Encodable, Sendable { var friends: [Friend] }
    struct RequestsResult: Encodable, Sendable {
        var incoming: [FriendRequest]
        var outgoing: [FriendRequest]
    }
    struct MatchResult: Encodable, Sendable { var matches: [ContactMatch] }
    struct FriendResult: Encodable, Sendable { var friend: Friend }
    struct ProfileResult: Encodable, Sendable { var profile: Profile }

    private func handle(_ envelope: RequestEnvelope, identity: Identity) {
        if Self.orderedOps.contains(envelope.op) {
            handleOrdered(envelope, identity: identity)
        } else {
            route(envelope, identity: identity)
        }
    }

    private func route(_ envelope: RequestEnvelope, identity: Identity) {
        let id = envelope.id
        let accounts = services.accounts
        let friends = services.friends
        let deliveries = services.deliveries
        let presence = services.presence
        let calls = services.calls
        let me = identity.userId
        switch envelope.op {
        case "register", "login", "authenticate":
            sendError(id, op: envelope.op, .alreadyAuthenticated, "this connection is already authenticated")
        case "ping":
            session.send(.text, ProtocolCodec.encodeReply(id: id, result: Empty()))
        case "logout":
            run(id, { () async throws(ServiceError) -> Empty in
                _ = try await accounts.revoke(sessionId: identity.sessionId, of: me)
                return Empty()
            }, then: { app, _ in
                let identity = app.identity
                // After the reply (queued next on this loop): close with 1000.
                LoopBound(app, loop: app.loop).execute { $0.session.closeWebSocket(code: 1000, reason: "logged out") }
                // Other connections of the same session (same token) are revoked too.
                if let identity { deliveries.revoke(sessionId: identity.sessionId, userId: identity.userId) }
            })
        case "sessions.list":
            run(id, { () async throws(ServiceError) -> SessionsResult in SessionsResult(sessions: try await accounts.sessions(of: identity)) })
        case "sessions.revoke":
            guard let p = params(SessionParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> Empty in
                guard try await accounts.revoke(sessionId: p.sessionId, of: me) else {
                    throw ServiceError(.notFound, "no such active session of yours")
                }
                deliveries.revoke(sessionId: p.sessionId, userId: me)
                return Empty()
            })
        case "profile.get":
            guard let p = params(ProfileGetParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> ProfileResult in ProfileResult(profile: try await accounts.profile(of: p.userId ?? me, viewer: me)) })
        case "profile.update":
            guard let p = params(ProfileUpdateParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> ProfileResult in
                let profile = try await accounts.updateProfile(of: me, displayName: p.displayName)
                calls.setName(profile.displayName, of: me)
                presence.setName(profile.displayName, of: me)
                let friendIds = try await friends.friends(of: me).map(\.userId)
                var public_ = profile
                public_.phone = nil
                deliveries.push(PushEvent(users: friendIds + [me], bytes: ProtocolCodec.encodeEvent("profile.updated", ["profile": public_])))
                return ProfileResult(profile: profile)
            })
        case "friends.request":
            guard let p = params(FriendRequestParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> FriendRequestResult in
                let (result, events) = try await friends.request(from: me, phone: p.phone, userId: p.userId)
                events.forEach(deliveries.push)
                if let friend = result.friend, !events.isEmpty { presence.friendshipChanged(me, friend.userId, friends: true) }
                return result
            })
        case "friends.accept":
            guard let p = params(RequestIDParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> FriendResult in
                let (friend, events) = try await friends.accept(requestId: p.requestId, me: me)
                events.forEach(deliveries.push)
                presence.friendshipChanged(me, friend.userId, friends: true)
                return FriendResult(friend: friend)
            })
        case "friends.decline", "friends.cancel":
            guard let p = params(RequestIDParams.self, envelope) else { return }
            let decline = envelope.op == "friends.decline"
            run(id, { () async throws(ServiceError) -> Empty in
                try await friends.settle(requestId: p.requestId, me: me, decline: decline).forEach(deliveries.push)
                return Empty()
            })
        case "friends.remove":
            guard let p = params(UserParams.self, envelope) else { return }
            run(id, { () async throws(ServiceError) -> Empty in
                try await friends.remove(friend: p.userId, me: me).forEach(deliveries.push)
                presence.friendshipChanged(me, p.userId, friends: false)
                return Empty()
            })
        case "friends.list":
            run(id, { () async throws(ServiceError) -> FriendsResult in FriendsResult(friends: try await friends.friends(of: me)) })
        case "friends.requests":
            run(id, { () async throws(ServiceError) -> RequestsResult in
                let (incoming, outgoing) = try await friends.requests(of: me)
                return RequestsResult(incoming: incoming, outgoing: outgoing)
            })
        case "contacts.match":
            guard let p = params(ContactsParams.self, envelope) else { return }
            let discovery = services.discovery
            let address = clientAddress
            run(id, { () async throws(ServiceError) -> MatchResult in
                // A list over the per-request maximum is refused (too_many) by the service without costing tokens.
                if p.phones.count <= friends.maxContactsPerMatch,
                    let refused = discovery.contacts(user: me, address: address, count: p.phones.count, now: EventLoop.now())
                {
                    throw refused
                }
                return MatchResult(matches: try await friends.match(phones: p.phones, me: me))
            })
        case let op where op.hasPrefix("call."):
            handleCall(envelope, identity: identity)
        case let op where Self.messagingOps.contains(op):
            handleMessaging(envelope, identity: identity)
        default:
            sendError(id, op: envelope.op, .unknownOp, "unknown op \(envelope.op.prefix(64))")
        }
    }
}
