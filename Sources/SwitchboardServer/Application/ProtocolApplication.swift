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
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport
import SwitchboardWebSocket

/// Protocol v1 on one connection. Lives on the connection's loop queue; service calls run as tasks and
/// come back to the loop to answer.
final class ProtocolApplication: WebSocketApplication, LoopAnchored {
    /// The connection it runs on (the HTTP session of a WebSocket; a test port in the harness). Strong: a reply or
    /// delivery loop may outlive the connection by a few calls (a write that fails closes it), and the port's sends
    /// are no-ops once closed. The cycle (the session's phase holds this application) is broken when the connection
    /// closes and the session drops its phase.
    let port: any ConnectionPort
    /// The server's features and shared services (the router, the engines).
    let application: ServerApplication
    /// Addresses this connection in the outbox (engines never hold the object).
    let connectionId: ConnectionID
    let openedAt: UInt64
    // protected by the connection's loop queue
    var identity: Identity?
    // protected by the connection's loop queue
    var authenticating = false
    // protected by the connection's loop queue. Unchecked exclusivity (also `messaging`): read for every delivery,
    // plain loads and stores or in-place mutations that call out to nothing that reaches them.
    @exclusivity(unchecked) var closed = false
    // protected by the connection's loop queue: `startHeld` runs (no recursion). With the other flags, in what would
    // be the identity's padding.
    var startingHeld = false
    // protected by the connection's loop queue: made by the first `LoopBound`, released when the connection closes;
    // dropped by the sweep while no handle holds it (an idle connection keeps none)
    private var anchor: LoopAnchor<ProtocolApplication>?
    // protected by the connection's loop queue: requests that arrived while authenticating, and in a cluster the
    // authentication's held replies; out of line, released when the authentication is done (an authenticated idle
    // connection keeps one pointer)
    @OutOfLine var authentication: AuthenticationHold
    // protected by the connection's loop queue
    @exclusivity(unchecked) var messaging = ConnectionMessaging()
    // protected by the connection's loop queue (inline: most connections make ordered requests; out of line, the lane
    // was made for 1,903 of the idle benchmark's 3,000 connections)
    var lane = OrderedLane()
    // protected by the connection's loop queue: live page state (held events during a resume, the last replay); out
    // of line until the connection first changes it (most connections never open a live page)
    @OutOfLine var social: ConnectionSocial
    // protected by the connection's loop queue
    var admission: RequestAdmission
    // protected by the connection's loop queue: the request being dispatched, until work that answers it later
    // takes it over (`takeRequestTicket`); ended when the dispatch returns otherwise
    var currentRequest: RequestTicket?

    init(port: any ConnectionPort, application: ServerApplication) {
        self.port = port
        self.application = application
        let services = application.services
        openedAt = EventLoop.now()
        admission = RequestAdmission(limit: services.maxRequestsInFlight)
        connectionId = ConnectionID.next(node: services.node)
    }

    // MARK: the connection's events (from the port's owner, on the loop)

    func session(_ session: HTTPSession, didReceiveBinary bytes: [UInt8]) { receiveBinary(bytes) }
    func session(_ session: HTTPSession, didReceiveText bytes: [UInt8]) { receiveText(bytes) }
    func sessionDidClose(_ session: HTTPSession) { connectionClosed() }
    func sessionDidDrain(_ session: HTTPSession) { connectionDrained() }
    func session(_ session: HTTPSession, sweepAt now: UInt64) { sweep(at: now) }

    /// A binary message: protocol v1 is JSON text only.
    func receiveBinary(_ bytes: [UInt8]) {
        port.sendText(
            ProtocolCodec.encodeError(id: nil, code: .badRequest, message: "protocol v1 uses JSON text frames"))
    }

    /// A text message: one request, started now or held while the connection is at its in-flight limit.
    func receiveText(_ bytes: [UInt8]) {
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
            services.errors.answered(
                op: ticket.op, code: error.code, underlying: nil, userId: identity?.userId,
                connectionId: port.connectionNumber)
            port.sendText(ProtocolCodec.encodeError(id: error.id, code: error.code, message: error.message))
            requestEnded(ticket)
            return
        case .success(let e): envelope = e
        }
        services.metrics.operations.received(envelope.op)
        currentRequest = RequestTicket(op: envelope.op, startedAt: EventLoop.now())
        dispatch(envelope)
        if let ticket = takeRequestTicket() { requestEnded(ticket) }
        if admission.shouldPause() {
            port.pauseReading()
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
            port.resumeReading()
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
            userId: identity?.userId, connectionId: port.connectionNumber)
        port.sendText(ProtocolCodec.encodeError(id: id, code: code, message: message, extra: extra, reason: reason))
    }

    /// Sends a service's error as the answer to request `id` of `op`.
    func sendError(_ id: RequestID, op: String, _ error: ServiceError) {
        sendError(
            id, op: op, error.code, error.message, extra: error.extra, reason: error.reason,
            underlying: error.underlying)
    }

    /// The path of a request: the router's look-up, the op's authentication rule, the ordered lane for
    /// state-changing ops, then the route (parameters and handler).
    private func dispatch(_ envelope: RequestEnvelope) {
        if authenticating {
            // Pipelined behind an authentication: processed after it, in order.
            guard authentication.queued.count < services.maxQueuedDuringAuthentication else {
                sendError(envelope.id, op: envelope.op, .rateLimited, "too many requests during authentication")
                return
            }
            authentication.queued.append((envelope, takeRequestTicket()))
            return
        }
        guard let route = application.router.route(envelope.op) else {
            sendError(envelope.id, op: envelope.op, .unknownOp, "unknown op \(envelope.op.prefix(64))")
            return
        }
        switch (route.traits.authentication, identity) {
        case (.authenticates, nil):
            route.handle(self, envelope, nil)
        case (.authenticates, _?):
            sendError(envelope.id, op: envelope.op, .alreadyAuthenticated, "this connection is already authenticated")
        case (.required, nil):
            sendError(envelope.id, op: envelope.op, .notAuthenticated, "authenticate, log in or register first")
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
        while !authenticating && !authentication.queued.isEmpty && !closed {
            let (envelope, ticket) = authentication.queued.removeFirst()
            currentRequest = ticket
            dispatch(envelope)
            if let ticket = takeRequestTicket() { requestEnded(ticket) }
        }
        if !authenticating && authentication.queued.isEmpty && authentication.replies == nil {
            _authentication.release()
        }
    }

    /// The server's shared infrastructure and engines.
    var services: ProtocolServices { application.services }

    /// The connection's loop (the session keeps its connection, and a loop outlives its connections).
    var loop: EventLoop { port.loop }

    /// Reached from other queues through `LoopBound` (an anchor, never a weak reference: see `LoopAnchor`).
    var loopAnchor: LoopAnchor<ProtocolApplication> {
        LoopAnchor.kept(in: &anchor, for: self, open: !closed, loop: loop)
    }

    /// The connection closed: waiting lane steps are dropped, request tasks outside the lane cancelled, the device
    /// leaves the registry, presence and live pages.
    func connectionClosed() {
        closed = true
        anchor?.release()
        // Waiting steps are never run (their requests get no reply, so the client cannot rely on them).
        lane.waiting = []
        lane.head = 0
        _authentication.release()
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
            if let device {
                services.presence.deviceDisconnected(device)
                services.cluster?.directory.localDetached(device)
            }
            callConnectionClosed(identity)
            if social.subscribed { services.social.connectionClosed(connectionId) }
        }
        outboundDrained(open: false)
    }

    /// The outbound queue drained after having backed up.
    func connectionDrained() {
        outboundDrained(open: true)
    }

    /// The loop's sweep (once a second): an unauthenticated connection past its timeout is closed with 4002.
    func sweep(at now: UInt64) {
        LoopAnchor.dropUnused(in: &anchor)
        if identity == nil && !authenticating && Double(now &- openedAt) >= services.authenticationTimeout * 1e9 {
            port.closeWebSocket(code: 4002, reason: "authentication timeout")
        }
    }

    // MARK: replies

    func sendEvent(_ bytes: [UInt8]) { port.sendEvent(bytes) }

    func sessionRevoked() {
        port.sendText(
            ProtocolCodec.encodeEvent(
                ServerEvent.SessionRevoked(sessionId: identity?.sessionId ?? 0)))
        port.closeWebSocket(code: 4001, reason: "session revoked")
    }

    func accountSuspended() {
        port.sendText(ProtocolCodec.encodeEvent(AccountSuspendedEvent(userId: identity?.userId ?? 0)))
        port.closeWebSocket(code: ModerationCloseCode.accountSuspended, reason: "account suspended")
    }

    /// Runs `work` off the loop and answers `id` with its result (or typed error) on the loop. The reply is
    /// encoded in the request task (history pages and conversation lists are large): the loop only sends bytes.
    func run<R: Encodable & Sendable>(
        _ id: RequestID,
        _ work: @escaping @Sendable () async throws(ServiceError) -> R,
        then: (@Sendable (ProtocolApplication, R) -> Void)? = nil
    ) {
        run(
            id,
            { () async throws(ServiceError) -> EncodedReply<R> in
                let value = try await work()
                return EncodedReply(value: value, bytes: ProtocolCodec.encodeReply(id: id, result: value))
            },
            replyWith: { app, reply in
                then?(app, reply.value)
                app.sendReply(reply.bytes)
            })
    }

    /// Runs `work` off the loop; on success `replyWith` runs on the loop and is responsible for the reply, on
    /// failure the typed error is the reply.
    func run<R: Sendable>(
        _ id: RequestID,
        _ work: @escaping @Sendable () async throws(ServiceError) -> R,
        replyWith: @escaping @Sendable (ProtocolApplication, R) -> Void
    ) {
        let me = LoopBound(self)
        // Started by a step of the ordered lane: the lane waits for this work and its `replyWith` (which hands
        // the effect on, e.g. to a conversation's writer or the call queue).
        let done = takeLaneDone()
        // The request stays in flight until this work has answered it.
        let ticket = takeRequestTicket()
        let number = admission.taskNumber()
        let owner = port.connectionNumber
        let acting = identity?.userId
        let task = Task(executorPreference: services.executor) {
            // Cancelled (the connection closed) before it started: nothing to do, nobody to answer.
            if Task.isCancelled { return }
            // The database pool serves connections in turn and bounds each one's share (`FairLeaseQueue`); every
            // write transaction of an authenticated connection locks its account against deletion (`ActingAccount`).
            let result: Result<R, ServiceError> = await DatabaseOwner.$key.withValue(owner) {
                await ActingAccount.$userId.withValue(acting) {
                    do throws(ServiceError) { return .success(try await work()) } catch { return .failure(error) }
                }
            }
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
        let me = LoopBound(self)
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
            route.handle(self, envelope, identity)
            takeLaneDone()?()
            if let ticket = takeRequestTicket() { requestEnded(ticket) }
        }
    }

    func fail(_ id: RequestID, _ error: ProtocolError) {
        sendError(id, op: nil, error.code, error.message)
    }

    // MARK: authentication

    /// The client's address without its port (the key of per-address limits; behind a trusted proxy, the
    /// address it forwarded for: `HTTPSession.clientAddress`).
    var clientAddress: String { port.clientAddress }

    /// An authentication op succeeded (on the loop): the connection becomes a device of its user.
    ///
    /// In a cluster the other nodes learn of the device through the directory, a moment later: until they have
    /// it, an event another node sends this user would miss this device. So the authentication's reply is held,
    /// and the connection's further requests (`sync` first of all) queued, until the device's change is recorded
    /// in Redis and sent to every node: a `sync` then reads from PostgreSQL after every node can address the
    /// device (`docs/cluster.md`, "A device that just connected").
    func authenticated(_ identity: Identity) {
        self.identity = identity
        authenticating = false
        services.outbox.attach(connectionId, self, loop: loop)
        if let device {
            services.registry.add(device)
            services.presence.deviceConnected(device)
            if let cluster = services.cluster {
                authenticating = true
                authentication.replies = []
                let me = LoopBound(self)
                cluster.directory.localAttached(device) {
                    me.execute { $0.releaseAuthentication() }
                }
            }
        }
        callConnectionOpened(identity)
    }

    /// The device is known to every node: sends the held reply and runs the requests queued behind it.
    private func releaseAuthentication() {
        guard let held = authentication.replies else { return }
        authentication.replies = nil
        authenticating = false
        guard !closed else { return }
        for bytes in held { port.sendText(bytes) }
        processQueued()
    }

    /// Sends a reply, or holds it while an authentication waits for the cluster's directory.
    func sendReply(_ bytes: [UInt8]) {
        if authentication.replies != nil {
            authentication.replies!.append(bytes)
        } else {
            port.sendText(bytes)
        }
    }
}
