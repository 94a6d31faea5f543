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
import SwitchboardCalls
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

/// Drives the `SwitchboardCalls` state machine for the `/ws` protocol.
///
/// One serial queue owns the `CallRegistry` and the deadline timer; every input runs there with the injected
/// clock's time, and each returned effect becomes one event to the connections of the devices it names (a
/// device is a session), posted to the outbox, or one record (a `calls` row and a system message in the
/// one-to-one conversation). Replies go to the origin connection before the effects' events.
///
/// In a cluster (`coordination`), one node coordinates every call (`docs/cluster.md`, "Calls across nodes"):
/// its service runs the registry; the others forward their `CallCommand`s to it over the bus and wait (bounded)
/// for its answer. Without a cluster this node always coordinates, exactly as before.
final class CallService: @unchecked Sendable {
    // @unchecked Sendable: `calls`, `names`, `coordinating`, `lastSummary`, `waiting`, `waitingHead` and `waitTimer`
    // are only touched on `queue` (asserted).
    let queue = DispatchQueue(label: "switchboard.calls")
    let registry: SessionRegistry
    /// Where call events and replies go.
    let outbox: any Outbox
    let clock: any EngineClock
    let settings: CallSettings
    let pool: DatabasePool
    let logger: Logger
    /// Set by the services once messaging exists (call records as system messages).
    let messages: MessageHub
    // protected by queue
    private var calls: CallRegistry
    // protected by queue: display names of callers, for the ring event
    private var names: [Int64: String] = [:]
    private let timer: DeadlineTimer
    /// Every record write in flight (a calls row and a system message each); `shutdown` waits for them, so
    /// a call that ended just before the shutdown keeps its records too.
    private let pendingRecords = DispatchGroup()
    /// The cluster's call coordination (nil: a single node, which coordinates its calls itself).
    let coordination: CallCoordination?
    // protected by queue: whether this node runs the registry (always without a cluster)
    private var coordinating: Bool
    // protected by queue: the summary of calls in progress last handed to `coordination`
    private var lastSummary: [UInt8]?
    /// A forwarded request and when its origin stops waiting for the answer.
    private struct Waiting {
        let deadline: UInt64
        let origin: Device
        let id: RequestID
        let op: String
    }
    // protected by queue: forwarded requests in the order sent (so in deadline order: one timeout for all),
    // from `waitingHead` on; answered ones stay until their deadline, when `ForwardedRequests` says so
    private var waiting: [Waiting] = []
    // protected by queue
    private var waitingHead = 0
    // protected by queue: armed for the first deadline of `waiting`
    private var waitTimer: (any EngineTimer)?

    init(
        registry: SessionRegistry, outbox: any Outbox, clock: any EngineClock = SystemClock(), settings: CallSettings,
        pool: DatabasePool,
        messages: MessageHub, coordination: CallCoordination? = nil, logger: Logger
    ) {
        self.registry = registry
        self.outbox = outbox
        self.clock = clock
        self.settings = settings
        self.pool = pool
        self.messages = messages
        self.logger = logger
        self.coordination = coordination
        coordinating = coordination == nil
        calls = CallRegistry(configuration: settings.registryConfiguration)
        timer = DeadlineTimer(queue: queue, clock: clock)
        coordination?.calls = self
    }

    private func assertOnQueue() { dispatchPrecondition(condition: .onQueue(queue)) }

    /// Runs a call command where calls are coordinated: here (always without a cluster), or on the coordinator
    /// node, whose answer comes back over the bus; request `id` (of `op`) of the origin connection is answered
    /// with the command's value (raw JSON for `ok`) or its error, or `unavailable` (with `retry_after_ms`) when no
    /// coordinator is known or its answer did not come within `CallClusterSettings.replyTimeout`.
    func perform(origin: Device, id: RequestID, op: String, command: CallCommand) {
        if let coordination {
            guard let coordinator = coordination.coordinator else {
                outbox.reply(.raw(id, op: op, .failure(unavailable(coordination))), to: origin.connection)
                return
            }
            if coordinator != coordination.node {
                queue.async { [self] in forward(origin, id, op, command, to: coordinator, coordination) }
                return
            }
        }
        queue.async { [self] in run(origin, id, op, command) }
    }

    /// Runs a registry input on the queue, applies its effects, and answers request `id` (of `op`) of the origin
    /// connection with the input's value (raw JSON for `ok`) or its error. Always on this node's registry (tests).
    func perform(
        origin: Device, id: RequestID, op: String,
        _ input: @escaping @Sendable (inout CallRegistry, UInt64) throws(CallError) -> ([UInt8], [CallEffect])
    ) {
        queue.async { [self] in execute(origin, id, op, input) }
    }

    /// A command of a device of this node or, on the coordinator, of another node's.
    private func run(_ origin: Device, _ id: RequestID, _ op: String, _ command: CallCommand) {
        assertOnQueue()
        if case .invite(_, let caller, _, let name, _, _, _, _) = command { names[caller] = name }
        let settings = settings
        execute(origin, id, op) { (registry: inout CallRegistry, now: UInt64) throws(CallError) in
            try command.apply(to: &registry, now: now, settings: settings)
        }
    }

    private func execute(
        _ origin: Device, _ id: RequestID, _ op: String,
        _ input: (inout CallRegistry, UInt64) throws(CallError) -> ([UInt8], [CallEffect])
    ) {
        assertOnQueue()
        let result: Result<[UInt8], ServiceError>
        var effects: [CallEffect] = []
        do throws(CallError) {
            let (value, e) = try input(&calls, clock.now())
            effects = e
            result = .success(value)
        } catch {
            result = .failure(Self.serviceError(error))
        }
        // The reply first, then the events (both on the origin's loop in this order; through the bus in this
        // order for another node's connection).
        outbox.reply(.raw(id, op: op, result), to: origin.connection)
        apply(effects)
        armTimer()
        publishSummary()
    }

    // MARK: the cluster

    private func unavailable(_ coordination: CallCoordination) -> ServiceError {
        ServiceError(
            .unavailable, "calls are temporarily unavailable; retry",
            extra: ["retry_after_ms": coordination.settings.retryAfterMilliseconds])
    }

    /// Sends a command of this node's device to the coordinator, and answers `unavailable` if its answer does
    /// not come in time.
    private func forward(
        _ origin: Device, _ id: RequestID, _ op: String, _ command: CallCommand, to coordinator: UInt32,
        _ coordination: CallCoordination
    ) {
        assertOnQueue()
        let forwarded = coordination.forwarded
        forwarded.add(origin.connection, id)
        let message = ClusterWire.callRequest(
            connection: origin.connection.rawValue, userId: origin.userId, sessionId: origin.sessionId,
            requestId: ForwardedReplyCodec.encode(id),
            op: op, command: command.encoded())
        let deadline = clock.now() &+ UInt64(CallSettings.milliseconds(coordination.settings.replyTimeout)) * 1_000_000
        waiting.append(Waiting(deadline: deadline, origin: origin, id: id, op: op))
        if waitTimer == nil { armWaitTimer() }
        coordination.bus.send(message.encoded(), to: coordinator)
    }

    private func armWaitTimer() {
        assertOnQueue()
        guard waitingHead < waiting.count else {
            waiting = []
            waitingHead = 0
            waitTimer = nil
            return
        }
        waitTimer = clock.schedule(at: waiting[waitingHead].deadline, on: queue) { [weak self] in self?.waitExpired() }
    }

    /// Forwarded requests past their deadline and still unanswered are answered `unavailable`.
    private func waitExpired() {
        assertOnQueue()
        guard let coordination else { return }
        let now = clock.now()
        while waitingHead < waiting.count, waiting[waitingHead].deadline <= now {
            let w = waiting[waitingHead]
            waitingHead += 1
            if coordination.forwarded.complete(w.origin.connection, w.id) {
                logger.warning("calls: the coordinator did not answer in time", metadata: ["sb.op": "\(w.op)"])
                outbox.reply(.raw(w.id, op: w.op, .failure(unavailable(coordination))), to: w.origin.connection)
            }
        }
        if waitingHead > 1024, waitingHead * 2 > waiting.count {
            waiting.removeFirst(waitingHead)
            waitingHead = 0
        }
        armWaitTimer()
    }

    /// A request another node forwarded (from the bus, on its subscriber's queue).
    func received(
        connection: UInt64, userId: Int64, sessionId: Int64, requestId: [UInt8], op: String, command bytes: [UInt8]
    ) {
        let origin = Device(sessionId: sessionId, userId: userId, connection: ConnectionID(rawValue: connection))
        guard let id = ForwardedReplyCodec.requestID(requestId) else {
            logger.error("calls: a forwarded request without a valid id was dropped")
            return
        }
        guard let command = CallCommand.decode(bytes) else {
            logger.error("calls: a malformed forwarded command was refused", metadata: ["sb.op": "\(op)"])
            outbox.reply(
                .raw(id, op: op, .failure(ServiceError.invariant("a forwarded call command that does not decode"))),
                to: origin.connection)
            return
        }
        queue.async { [self] in
            guard coordinating else {
                // Sent to this node as the coordinator, which it no longer is (or is not yet).
                if let coordination {
                    outbox.reply(.raw(id, op: op, .failure(unavailable(coordination))), to: origin.connection)
                }
                return
            }
            run(origin, id, op, command)
        }
    }

    /// This node got the coordinator lease: the calls its predecessor left (`previous`) end as `server_failure`
    /// (their parties are told, their records written once), and this node runs the registry from now on.
    func takeOver(_ previous: [LiveCallSummary]) {
        queue.async { [self] in
            coordinating = true
            let now = Date()
            let nowMs = Int64(now.timeIntervalSince1970 * 1000)
            for call in previous {
                let duration = call.answeredAt.map { max(0, nowMs - $0) } ?? 0
                let ended = CallEvents.Ended(
                    callId: call.callId, reason: CallEndReason.serverFailure.rawValue, durationMs: duration)
                let bytes = ProtocolCodec.encodeEvent(ended)
                let devices = Set(([call.callerDevice] + call.calleeDevices).map(DeviceID.init))
                messages.metrics.callsEnded.increment()
                store(
                    callId: call.callId, caller: call.caller, callee: call.callee, media: call.media,
                    outcome: CallOutcome.serverFailure.rawValue,
                    reason: CallEndReason.serverFailure.rawValue,
                    startedAt: Date(timeIntervalSince1970: Double(call.startedAt) / 1000),
                    answeredAt: call.answeredAt.map { Date(timeIntervalSince1970: Double($0) / 1000) }, endedAt: now,
                    durationMs: duration,
                    rowWritten: { [self] in send(bytes, to: devices) })
            }
            lastSummary = nil
            publishSummary()
        }
    }

    /// Another node holds the lease now: this node forgets its calls (the new coordinator ends them).
    func resign() {
        queue.async { [self] in
            coordinating = false
            calls = CallRegistry(configuration: settings.registryConfiguration)
            armTimer()
        }
    }

    /// Writes the summary of the calls in progress again (the store was unreachable, and may have lost it).
    func republishSummary() {
        queue.async { [self] in
            lastSummary = nil
            publishSummary()
        }
    }

    /// Hands the summary of the calls in progress to `coordination` when it changed (the coordinator only).
    private func publishSummary() {
        assertOnQueue()
        guard let coordination, coordinating else { return }
        let summary = calls.liveCalls.map { call in
            let callee: [Int64]
            if case .active(_, _, let device) = call.state {
                callee = [device.rawValue]
            } else {
                callee = call.ringingDevices.map(\.rawValue).sorted()
            }
            return LiveCallSummary(
                callId: call.id.rawValue, caller: call.caller.rawValue, callerDevice: call.callerDevice.rawValue,
                callee: call.callee.rawValue,
                calleeDevices: callee, media: call.media.rawValue,
                startedAt: Self.milliseconds(wallClock(call.createdAt)),
                answeredAt: call.answeredAt.map { Self.milliseconds(wallClock($0)) })
        }
        guard let bytes = try? Array(JSONEncoder().encode(summary)), bytes != lastSummary else { return }
        lastSummary = bytes
        coordination.save(bytes)
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    /// Remembers a caller's display name for ring events.
    func setName(_ name: String, of userId: Int64) {
        queue.async { [self] in names[userId] = name }
    }

    /// A refusal of the state machine as the wire answer (through the feature's typed error).
    static func serviceError(_ error: CallError) -> ServiceError { CallsService.refusal(error).wire }

    // MARK: devices

    /// A connection authenticated: if it is its session's first, the device is back (active calls resume;
    /// a ringing call to this user rings here too).
    ///
    /// In a cluster every node calls this for every device of the cluster (its own, and the others' as the
    /// directory attaches them); only the coordinator acts on it.
    func connectionOpened(_ device: Device) {
        connectionsChanged([(device, true)])
    }

    /// Connections opened and closed (`connectionOpened`, `connectionClosed`), in order, in one block on the queue
    /// (the cluster's directory hands over a bus message's devices together).
    func connectionsChanged(_ changes: [(device: Device, opened: Bool)]) {
        queue.async { [self] in
            guard coordinating else { return }
            var changed = false
            for (device, opened) in changes {
                let now = clock.now()
                let id = DeviceID(device.sessionId)
                let user = UserID(device.userId)
                if opened {
                    guard registry.devices(ofSession: device.sessionId).count == 1 else { continue }
                    apply(
                        calls.deviceReconnected(id, user: user, now: now)
                            + calls.calleeDeviceCameOnline(id, user: user, now: now))
                } else {
                    guard registry.devices(ofSession: device.sessionId).isEmpty else { continue }
                    apply(calls.deviceDisconnected(id, user: user, now: now))
                }
                changed = true
            }
            guard changed else { return }
            armTimer()
            publishSummary()
        }
    }

    /// A connection closed: if its session has no other, the device is gone. In a cluster, as `connectionOpened`
    /// (a dead node's devices are detached by the directory: their calls end or wait for them as for a closed
    /// connection).
    func connectionClosed(_ device: Device) {
        connectionsChanged([(device, false)])
    }

    /// Ends every call in progress as `server_shutdown`: the parties are told and the records are written
    /// (waits up to 5 s for the database). In a cluster only the coordinator has calls; it writes the (empty)
    /// summary and gives the lease up.
    func shutdown() {
        queue.sync {
            timer.cancel()
            apply(calls.shutdown(now: clock.now()))
            publishSummary()
            waitTimer?.cancel()
            waitTimer = nil
        }
        _ = pendingRecords.wait(timeout: .now() + 5)
        coordination?.stop()
    }

    // MARK: effects

    private func apply(_ effects: [CallEffect]) {
        assertOnQueue()
        // `call.ended` waits for its call's history row (the registry emits `.ended` then `.record`), so that a
        // `call.history` sent on receiving it lists the call.
        var endedEvents: [CallID: (bytes: [UInt8], devices: Set<DeviceID>)] = [:]
        for effect in effects {
            switch effect {
            case .ring(let devices, let call):
                let name = names[call.caller.rawValue] ?? ""
                let caller = CallEvents.Ring.Caller(userId: call.caller.rawValue, displayName: name)
                let ring = CallEvents.Ring(
                    callId: call.id.rawValue, caller: caller, media: call.media.rawValue, offer: call.offer,
                    ringMs: Self.ringMilliseconds(call, now: clock.now()))
                send(ProtocolCodec.encodeEvent(ring), to: devices)
            case .ringing(let id, let to, let count):
                send(ProtocolCodec.encodeEvent(CallEvents.Ringing(callId: id.rawValue, devices: count)), to: [to])
            case .answeredElsewhere(let id, let devices):
                send(ProtocolCodec.encodeEvent(CallEvents.AnsweredElsewhere(callId: id.rawValue)), to: devices)
            case .accepted(let id, let to, _, let answer):
                send(ProtocolCodec.encodeEvent(CallEvents.Accepted(callId: id.rawValue, answer: answer)), to: [to])
            case .relay(let id, let to, _, let signal):
                let event = CallEvents.Signal(callId: id.rawValue, kind: signal.kind.rawValue, payload: signal.payload)
                send(ProtocolCodec.encodeEvent(event), to: [to])
            case .peerConnectionLost(let id, let to, let deadline):
                let now = clock.now()
                let grace = Int64((deadline > now ? deadline - now : 0) / 1_000_000)
                let event = CallEvents.PeerConnectionLost(callId: id.rawValue, graceMs: grace)
                send(ProtocolCodec.encodeEvent(event), to: [to])
            case .peerReconnected(let id, let to):
                send(ProtocolCodec.encodeEvent(CallEvents.PeerReconnected(callId: id.rawValue)), to: [to])
            case .resumed(let call, let to):
                send(ProtocolCodec.encodeEvent(CallEvents.Resumed(call: Self.info(call, now: clock.now()))), to: [to])
            case .ended(let call, let reason, let notify, let duration):
                let event = CallEvents.Ended(
                    callId: call.id.rawValue, reason: reason.rawValue, durationMs: Int64(duration / 1_000_000))
                endedEvents[call.id] = (ProtocolCodec.encodeEvent(event), notify)
            case .record(let record):
                messages.metrics.callsEnded.increment()
                let ended = endedEvents.removeValue(forKey: record.callID)
                store(
                    record,
                    rowWritten: { [self] in
                        if let ended { send(ended.bytes, to: ended.devices) }
                    })
            }
        }
        for ended in endedEvents.values { send(ended.bytes, to: ended.devices) }
    }

    /// Milliseconds left of a call's ring at `now` (0 once past its deadline).
    static func ringMilliseconds(_ call: Call, now: UInt64) -> Int64 {
        Int64((call.ringDeadline > now ? call.ringDeadline - now : 0) / 1_000_000)
    }

    /// A call as the call events show it (`CallInfo`); the SDP offer only with `offer` (the callee's views: the
    /// ring's offer travels separately, and the glare reply, whose device answers it). `now` (the registry's clock)
    /// gives a ringing call its `ring_ms`: the milliseconds left before it times out (relative, so the client's
    /// clock need not agree with ours).
    static func info(_ call: Call, offer includeOffer: Bool = false, now: UInt64) -> CallInfo {
        var reason: String?
        let state: String
        switch call.state {
        case .ringing: state = "ringing"
        case .active: state = "active"
        case .ended(let why):
            state = "ended"
            reason = why.rawValue
        }
        var ringing = false
        if case .ringing = call.state { ringing = true }
        return CallInfo(
            callId: call.id.rawValue, callerId: call.caller.rawValue, calleeId: call.callee.rawValue,
            media: call.media.rawValue, state: state, reason: reason, offer: includeOffer ? call.offer : nil,
            ringMs: ringing ? Self.ringMilliseconds(call, now: now) : nil)
    }

    /// Writes `info(call, offer:, now:)` as a JSON object without `JSONEncoder`, for the call ops' results (written
    /// by hand with the reply; a test compares the two as parsed JSON).
    static func write(_ call: Call, _ w: inout JSONWriter, offer includeOffer: Bool = false, now: UInt64) {
        w.beginObject()
        w.key("call_id")
        w.string(call.id.rawValue)
        w.key("callee_id")
        w.int(call.callee.rawValue)
        w.key("caller_id")
        w.int(call.caller.rawValue)
        w.key("media")
        w.string(call.media.rawValue)
        if includeOffer, let offer = call.offer {
            w.key("offer")
            w.string(offer)
        }
        if case .ringing = call.state {
            w.key("ring_ms")
            w.int(Self.ringMilliseconds(call, now: now))
        }
        w.key("state")
        switch call.state {
        case .ringing: w.string("ringing")
        case .active: w.string("active")
        case .ended(let reason):
            w.string("ended")
            w.key("reason")
            w.string(reason.rawValue)
        }
        w.endObject()
    }

    private func send(_ bytes: [UInt8], to devices: Set<DeviceID>) {
        var targets: [ConnectionID] = []
        for device in devices { targets += registry.devices(ofSession: device.rawValue).map(\.connection) }
        outbox.post(.event(bytes), to: targets)
    }

    /// Wall-clock time of a monotonic instant.
    private func wallClock(_ monotonic: UInt64) -> Date {
        let now = clock.now()
        return Date().addingTimeInterval(-Double(now > monotonic ? now - monotonic : 0) / 1e9)
    }

    /// Writes the calls row and the system message; `rowWritten` runs on `queue` once the row is committed (or its
    /// write failed), before `shutdown` stops waiting.
    private func store(_ record: CallRecord, rowWritten: @escaping @Sendable () -> Void) {
        store(
            callId: record.callID.rawValue, caller: record.caller.rawValue, callee: record.callee.rawValue,
            media: record.media.rawValue,
            outcome: record.outcome.rawValue, reason: record.reason.rawValue, startedAt: wallClock(record.startedAt),
            answeredAt: record.answeredAt.map(wallClock), endedAt: wallClock(record.endedAt),
            durationMs: record.durationMilliseconds,
            rowWritten: rowWritten)
    }

    private func store(
        callId: String, caller: Int64, callee: Int64, media: String, outcome: String, reason: String,
        startedAt started: Date,
        answeredAt answered: Date?, endedAt ended: Date, durationMs: Int64, rowWritten: @escaping @Sendable () -> Void
    ) {
        let group = pendingRecords
        group.enter()
        group.enter()
        // Urgent: `call.ended` waits for this row (not for the queue of reads and writes behind the pool).
        pool.withConnection(
            on: queue, urgent: true,
            { db in
                try CallRecordRepository.insert(
                    db, callId: callId, caller: caller, callee: callee, media: media, outcome: outcome, reason: reason,
                    startedAt: started,
                    answeredAt: answered, endedAt: ended, durationMs: durationMs)
            },
            completion: { [logger] result in
                if case .failure(let error) = result {
                    logger.error(
                        "call record not stored",
                        metadata: [
                            LogKey.error: "\(error)", LogKey.callId: "\(callId)", LogKey.userId: "\(caller),\(callee)",
                        ])
                }
                rowWritten()
                group.leave()
            })
        let event = SystemEvent(
            event: "call", actorId: caller, callId: callId, media: media, outcome: outcome, durationMs: durationMs)
        messages.recordCall(between: caller, and: callee, event: event) { [logger] result in
            if case .failure(let error) = result {
                logger.warning(
                    "call system message not stored",
                    metadata: [
                        LogKey.error: "\(error.message)", LogKey.callId: "\(callId)",
                        LogKey.userId: "\(caller),\(callee)",
                    ])
            }
            group.leave()
        }
    }

    // MARK: the deadline timer

    private func armTimer() {
        assertOnQueue()
        timer.arm(calls.nextDeadline) { [weak self] in self?.tick() }
    }

    private func tick() {
        assertOnQueue()
        apply(calls.tick(now: clock.now()))
        armTimer()
        publishSummary()
    }
}
