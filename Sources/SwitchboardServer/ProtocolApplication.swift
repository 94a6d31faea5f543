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
    /// The ops and their handlers.
    let router = OperationRouter.standard
    /// `reactions.set` per user: a burst of 30, then 10 a second.
    let reactionLimiter = SharedRateLimiter<Int64>(capacity: 30, refillPerSecond: 10)

    init(
        accounts: AccountService, friends: FriendService, pool: DatabasePool, configuration: ServerConfiguration,
        metrics: ServerMetrics, logger: Logger
    ) {
        self.accounts = accounts
        self.friends = friends
        let registry = SessionRegistry()
        self.registry = registry
        let messages = MessageHub(
            registry: registry, pool: pool, configuration: configuration.messaging, metrics: metrics, logger: logger)
        self.messages = messages
        self.calls = CallService(registry: registry, settings: configuration.calls, pool: pool, messages: messages, logger: logger)
        self.presence = PresenceHub(
            registry: registry, pool: pool, grace: configuration.messaging.presenceGrace, metrics: metrics, logger: logger)
        self.outboundLimit = configuration.maxOutboundBytes
        self.voice = VoiceService(configuration: configuration.voice, accounts: accounts, pool: pool, metrics: metrics, logger: logger)
        self.authenticationTimeout = configuration.authenticationTimeout
        self.discovery = DiscoveryLimiter(configuration.discoveryLimits)
        self.maxWaitingRequests = configuration.maxWaitingRequests
    }
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
    let openedAt: UInt64
    // protected by the connection's loop queue
    var identity: Identity?
    // protected by the connection's loop queue
    var authenticating = false
    // protected by the connection's loop queue
    var closed = false
    // protected by the connection's loop queue: requests that arrived while authenticating
    var queued: [RequestEnvelope] = []
    // protected by the connection's loop queue
    var messaging = ConnectionMessaging()
    // protected by the connection's loop queue
    var lane = OrderedLane()

    init(session: HTTPSession, services: ProtocolServices) {
        self.session = session
        self.services = services
        openedAt = EventLoop.now()
        loop = session.connection.loop
    }


    func session(_ session: HTTPSession, didReceiveBinary bytes: [UInt8]) {
        session.send(.text, ProtocolCodec.encodeError(id: nil, code: .badRequest, message: "protocol v1 uses JSON text frames"))
    }

    func session(_ session: HTTPSession, didReceiveText bytes: [UInt8]) {
        let envelope: RequestEnvelope
        switch ProtocolCodec.decodeEnvelope(bytes) {
        case .failure(let error):
            session.send(.text, ProtocolCodec.encodeError(id: error.id, code: error.code, message: error.message))
            return
        case .success(let e): envelope = e
        }
        dispatch(envelope)
    }

    /// The path of a request: the router's look-up, the op's authentication rule, the ordered lane for
    /// state-changing ops, then the route (parameters and handler).
    private func dispatch(_ envelope: RequestEnvelope) {
        if authenticating {
            // Pipelined behind an authentication: processed after it, in order.
            guard queued.count < services.maxQueuedDuringAuthentication else {
                session.send(.text, ProtocolCodec.encodeError(id: envelope.id, code: .rateLimited, message: "too many requests during authentication"))
                return
            }
            queued.append(envelope)
            return
        }
        guard let route = services.router.route(envelope.op) else {
            session.send(.text, ProtocolCodec.encodeError(id: envelope.id, code: .unknownOp, message: "unknown op \(envelope.op.prefix(64))"))
            return
        }
        switch (route.traits.authentication, identity) {
        case (.authenticates, nil):
            route.handle(self, envelope, nil)
        case (.authenticates, _?):
            session.send(.text, ProtocolCodec.encodeError(id: envelope.id, code: .alreadyAuthenticated, message: "this connection is already authenticated"))
        case (.required, nil):
            session.send(.text, ProtocolCodec.encodeError(id: envelope.id, code: .notAuthenticated, message: "authenticate, log in or register first"))
        case (.required, let identity?):
            if route.traits.stateChanging {
                handleOrdered(envelope, route: route, identity: identity)
            } else {
                route.handle(self, envelope, identity)
            }
        }
    }

    /// Processes requests that waited for an authentication.
    private func processQueued() {
        while !authenticating && !queued.isEmpty && !closed {
            dispatch(queued.removeFirst())
        }
    }

    func sessionDidClose(_ session: HTTPSession) {
        closed = true
        // Waiting steps are never run (their requests get no reply, so the client cannot rely on them).
        lane.waiting = []
        lane.head = 0
        if let identity {
            let device = self.device
            services.registry.remove(self, userId: identity.userId)
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
        session.send(
            .text,
            ProtocolCodec.encodeEvent(
                ServerEvent.Name.sessionRevoked.rawValue, ServerEvent.SessionRevoked(sessionId: identity?.sessionId ?? 0)))
        session.closeWebSocket(code: 4001, reason: "session revoked")
    }

    /// Runs `work` off the loop and answers `id` with its result (or typed error) on the loop.
    func run<R: Encodable & Sendable>(
        _ id: RequestID,
        _ work: @escaping @Sendable () async throws(ServiceError) -> R,
        then: (@Sendable (ProtocolApplication, R) -> Void)? = nil
    ) {
        run(id, work, replyWith: { app, value in
            then?(app, value)
            app.session.send(.text, ProtocolCodec.encodeReply(id: id, result: value))
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
        Task(executorPreference: services.executor) {
            let result: Result<R, ServiceError>
            do throws(ServiceError) { result = .success(try await work()) } catch { result = .failure(error) }
            me.execute { app in
                let wasAuthenticating = app.authenticating
                app.authenticating = false
                guard !app.closed else { return }
                switch result {
                case .success(let value):
                    replyWith(app, value)
                case .failure(let error):
                    app.session.send(.text, ProtocolCodec.encodeError(id: id, code: error.code, message: error.message, extra: error.extra, reason: error.reason))
                }
                done?()
                if wasAuthenticating { app.processQueued() }
            }
        }
    }

    // MARK: the ordered lane

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
    /// are done when the handler returns, work started with `run` when its reply has run on the loop.
    private func handleOrdered(_ envelope: RequestEnvelope, route: OperationRouter.Route, identity: Identity) {
        guard lane.count < services.maxWaitingRequests else {
            session.send(
                .text,
                ProtocolCodec.encodeError(
                    id: envelope.id, code: .rateLimited, message: "too many requests waiting on this connection",
                    extra: ["retry_after_ms": 100]))
            return
        }
        ordered { [self] done in
            lane.unclaimed = done
            route.handle(self, envelope, identity)
            takeLaneDone()?()
        }
    }

    func fail(_ id: RequestID, _ error: ProtocolError) {
        session.send(.text, ProtocolCodec.encodeError(id: id, code: error.code, message: error.message))
    }

    // MARK: authentication

    /// The client's address without its port (the key of per-address limits).
    var clientAddress: String {
        session.connection.remoteAddress.split(separator: ":").dropLast().joined(separator: ":")
    }

    /// An authentication op succeeded (on the loop): the connection becomes a device of its user.
    func authenticated(_ identity: Identity) {
        self.identity = identity
        authenticating = false
        services.registry.add(self, identity: identity, loop: loop)
        if let device { services.presence.deviceConnected(device) }
        callConnectionOpened(identity)
    }
}
