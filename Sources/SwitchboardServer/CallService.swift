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
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

/// Call signalling settings (see docs/calls.md).
public struct CallSettings: Sendable {
    /// Seconds a call rings before it ends as a timeout (missed).
    public var ringTimeout: Double = 120
    /// Seconds a party's device may be disconnected from an active call before it ends as connection_lost.
    public var reconnectGrace: Double = 10
    /// Largest SDP in bytes.
    public var maxSDPBytes = 16 * 1024
    /// Largest ICE candidate (or other small signal) in bytes.
    public var maxICECandidateBytes = 1024
    /// Signals per device: per second and burst.
    public var signalsPerSecond: Double = 50
    public var signalBurst = 100
    /// ICE candidates held while ringing.
    public var maxBufferedCandidates = 64
    /// STUN/TURN URIs handed out by `call.turn`.
    public var turnURIs: [String] = []
    /// coturn's `static-auth-secret` (`use-auth-secret`); without it `call.turn` returns the URIs only.
    public var turnSecret: String?
    /// Seconds TURN credentials stay valid.
    public var turnTTL: Int64 = 3600
    /// `call.turn` requests per user per minute (and the burst).
    public var turnRequestsPerMinute: Double = 10

    public init() {}

    var registryConfiguration: CallConfiguration {
        CallConfiguration(
            ringTimeout: .milliseconds(Self.milliseconds(ringTimeout)), reconnectGrace: .milliseconds(Self.milliseconds(reconnectGrace)),
            maxSDPBytes: maxSDPBytes, maxICECandidateBytes: maxICECandidateBytes, signalsPerSecond: signalsPerSecond,
            signalBurst: signalBurst, maxBufferedCandidates: maxBufferedCandidates)
    }

    /// Seconds as whole milliseconds, clamped to 0...Int64.max / 1000 (no trap on huge or non-finite settings).
    static func milliseconds(_ seconds: Double) -> Int64 {
        let ms = seconds * 1000
        guard ms.isFinite else { return ms > 0 ? Int64.max / 1000 : 0 }
        return Int64(min(max(ms, 0), Double(Int64.max / 1000)))
    }
}

/// Drives the `SwitchboardCalls` state machine for the `/ws` protocol.
///
/// One serial queue owns the `CallRegistry` and the deadline timer; every input runs there with the injected
/// clock's time, and each returned effect becomes one event to the connections of the devices it names (a
/// device is a session), posted to the outbox, or one record (a `calls` row and a system message in the
/// one-to-one conversation). Replies go to the origin connection before the effects' events.
final class CallService: @unchecked Sendable {
    // @unchecked Sendable: `calls` and `names` are only touched on `queue` (asserted).
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
    /// `call.turn` requests per user (thread-safe).
    let turnLimiter: SharedRateLimiter<Int64>
    /// Every record write in flight (a calls row and a system message each); `shutdown` waits for them, so
    /// a call that ended just before the shutdown keeps its records too.
    private let pendingRecords = DispatchGroup()

    init(
        registry: SessionRegistry, outbox: any Outbox, clock: any EngineClock = SystemClock(), settings: CallSettings, pool: DatabasePool,
        messages: MessageHub, logger: Logger
    ) {
        self.registry = registry
        self.outbox = outbox
        self.clock = clock
        self.settings = settings
        self.pool = pool
        self.messages = messages
        self.logger = logger
        calls = CallRegistry(configuration: settings.registryConfiguration)
        timer = DeadlineTimer(queue: queue, clock: clock)
        turnLimiter = SharedRateLimiter(
            capacity: max(1, settings.turnRequestsPerMinute), refillPerSecond: settings.turnRequestsPerMinute / 60)
    }

    private func assertOnQueue() { dispatchPrecondition(condition: .onQueue(queue)) }


    /// Runs a registry input on the queue, applies its effects, and answers request `id` (of `op`) of the origin
    /// connection with the input's value (raw JSON for `ok`) or its error.
    func perform(
        origin: Device, id: RequestID, op: String,
        _ input: @escaping @Sendable (inout CallRegistry, UInt64) throws(CallError) -> ([UInt8], [CallEffect])
    ) {
        queue.async { [self] in
            let result: Result<[UInt8], ServiceError>
            var effects: [CallEffect] = []
            do throws(CallError) {
                let (value, e) = try input(&calls, clock.now())
                effects = e
                result = .success(value)
            } catch {
                result = .failure(Self.serviceError(error))
            }
            // The reply first, then the events (both on the origin's loop in this order).
            outbox.reply(.raw(id, op: op, result), to: origin.connection)
            apply(effects)
            armTimer()
        }
    }

    /// Remembers a caller's display name for ring events.
    func setName(_ name: String, of userId: Int64) {
        queue.async { [self] in names[userId] = name }
    }

    static func serviceError(_ error: CallError) -> ServiceError {
        switch error {
        case .notFound: ServiceError(.notFound, "no such call of yours")
        case .forbidden: ServiceError(.forbidden, "this device or party may not do that")
        case .invalidState: ServiceError(.invalidState, "the call is not in a state that allows this")
        case .selfCall: ServiceError(.selfCall, "you cannot call yourself")
        case .alreadyInCall: ServiceError(.alreadyInCall, "you already have a call in progress")
        case .duplicateCallID: ServiceError(.duplicateCallId, "this call id is in use")
        case .tooLarge(let limit): ServiceError(.payloadTooLarge, "the payload is larger than \(limit) bytes")
        case .rateLimited(let ns):
            // Rounded up without overflow (a bucket that never refills reports UInt64.max).
            ServiceError(
                .rateLimited, "too many signals",
                extra: ["retry_after_ms": Int64(clamping: ns / 1_000_000 + (ns % 1_000_000 == 0 ? 0 : 1))])
        case .candidateBufferFull: ServiceError(.candidateBufferFull, "too many ICE candidates before the answer")
        case .invalidPayload: ServiceError(.badRequest, "a media signal's payload is voice or video")
        }
    }

    // MARK: devices

    /// A connection authenticated: if it is its session's first, the device is back (active calls resume;
    /// a ringing call to this user rings here too).
    func connectionOpened(_ device: Device) {
        queue.async { [self] in
            guard registry.devices(ofSession: device.sessionId).count == 1 else { return }
            let now = clock.now()
            let id = DeviceID(device.sessionId)
            let user = UserID(device.userId)
            apply(calls.deviceReconnected(id, user: user, now: now) + calls.calleeDeviceCameOnline(id, user: user, now: now))
            armTimer()
        }
    }

    /// A connection closed: if its session has no other, the device is gone.
    func connectionClosed(_ device: Device) {
        queue.async { [self] in
            guard registry.devices(ofSession: device.sessionId).isEmpty else { return }
            apply(calls.deviceDisconnected(DeviceID(device.sessionId), user: UserID(device.userId), now: clock.now()))
            armTimer()
        }
    }

    /// Ends every call in progress as `server_shutdown`: the parties are told and the records are written
    /// (waits up to 5 s for the database).
    func shutdown() {
        queue.sync {
            timer.cancel()
            apply(calls.shutdown(now: clock.now()))
        }
        _ = pendingRecords.wait(timeout: .now() + 5)
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
                send(Self.event("call.ring") { w in
                    w.key("call_id")
                    w.string(call.id.rawValue)
                    w.key("caller")
                    w.beginObject()
                    w.key("display_name")
                    w.string(names[call.caller.rawValue] ?? "")
                    w.key("user_id")
                    w.int(call.caller.rawValue)
                    w.endObject()
                    w.key("media")
                    w.string(call.media.rawValue)
                    if let offer = call.offer {
                        w.key("offer")
                        w.string(offer)
                    }
                }, to: devices)
            case .ringing(let id, let to, let count):
                send(Self.event("call.ringing") { w in
                    w.key("call_id")
                    w.string(id.rawValue)
                    w.key("devices")
                    w.int(Int64(count))
                }, to: [to])
            case .answeredElsewhere(let id, let devices):
                send(Self.event("call.answered_elsewhere") { w in
                    w.key("call_id")
                    w.string(id.rawValue)
                }, to: devices)
            case .accepted(let id, let to, _, let answer):
                send(Self.event("call.accepted") { w in
                    if let answer {
                        w.key("answer")
                        w.string(answer)
                    }
                    w.key("call_id")
                    w.string(id.rawValue)
                }, to: [to])
            case .relay(let id, let to, _, let signal):
                send(Self.event("call.signal") { w in
                    w.key("call_id")
                    w.string(id.rawValue)
                    w.key("kind")
                    w.string(signal.kind.rawValue)
                    w.key("payload")
                    w.string(signal.payload)
                }, to: [to])
            case .peerConnectionLost(let id, let to, let deadline):
                let now = clock.now()
                send(Self.event("call.peer_connection_lost") { w in
                    w.key("call_id")
                    w.string(id.rawValue)
                    w.key("grace_ms")
                    w.int(Int64((deadline > now ? deadline - now : 0) / 1_000_000))
                }, to: [to])
            case .peerReconnected(let id, let to):
                send(Self.event("call.peer_reconnected") { w in
                    w.key("call_id")
                    w.string(id.rawValue)
                }, to: [to])
            case .resumed(let call, let to):
                send(Self.event("call.resumed") { w in
                    w.key("call")
                    Self.write(call, &w)
                }, to: [to])
            case .ended(let call, let reason, let notify, let duration):
                let bytes = Self.event("call.ended") { w in
                    w.key("call_id")
                    w.string(call.id.rawValue)
                    w.key("duration_ms")
                    w.int(Int64(duration / 1_000_000))
                    w.key("reason")
                    w.string(reason.rawValue)
                }
                endedEvents[call.id] = (bytes, notify)
            case .record(let record):
                messages.metrics.callsEnded.increment()
                let ended = endedEvents.removeValue(forKey: record.callID)
                store(record, rowWritten: { [self] in
                    if let ended { send(ended.bytes, to: ended.devices) }
                })
            }
        }
        for ended in endedEvents.values { send(ended.bytes, to: ended.devices) }
    }

    static func event(_ name: String, _ body: (inout JSONWriter) -> Void) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ev")
        w.string(name)
        body(&w)
        w.endObject()
        return w.bytes
    }

    /// A `call` object; the SDP offer only with `offer` (the callee's views: the ring's offer travels separately, and
    /// the glare reply, whose device answers it).
    static func write(_ call: Call, _ w: inout JSONWriter, offer includeOffer: Bool = false) {
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

    static func json(_ call: Call) -> [UInt8] {
        var w = JSONWriter()
        write(call, &w)
        return w.bytes
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
        let started = wallClock(record.startedAt)
        let answered = record.answeredAt.map(wallClock)
        let ended = wallClock(record.endedAt)
        let group = pendingRecords
        group.enter()
        group.enter()
        pool.withConnection(
            on: queue,
            { db in
                try CallRecordRepository.insert(
                    db, callId: record.callID.rawValue, caller: record.caller.rawValue, callee: record.callee.rawValue,
                    media: record.media.rawValue, outcome: record.outcome.rawValue, reason: record.reason.rawValue, startedAt: started,
                    answeredAt: answered, endedAt: ended, durationMs: record.durationMilliseconds)
            },
            completion: { [logger] result in
                if case .failure(let error) = result { logger.error("call record not stored", metadata: [LogKey.error: "\(error)"]) }
                rowWritten()
                group.leave()
            })
        let event = SystemEvent(
            event: "call", actorId: record.caller.rawValue, callId: record.callID.rawValue, media: record.media.rawValue,
            outcome: record.outcome.rawValue, durationMs: record.durationMilliseconds)
        messages.recordCall(between: record.caller.rawValue, and: record.callee.rawValue, event: event) { [logger] result in
            if case .failure(let error) = result {
                logger.warning("call system message not stored", metadata: [LogKey.error: "\(error.message)"])
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
    }
}
