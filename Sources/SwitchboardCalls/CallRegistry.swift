//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The state of every call: a pure state machine with value semantics.
///
/// Not thread-safe: the owner confines it to one serial queue and passes the time in (`now`, monotonic
/// nanoseconds) on every input. Each input returns the effects to perform (`CallEffect`), or throws a
/// `CallError` and changes nothing.
///
/// Deadlines (ring timeout, reconnect grace) are inclusive and are acted on only by `tick(now:)`: the
/// owner arms one timer for `nextDeadline` and calls `tick` when it fires. A request that arrives at or
/// after a call's deadline, before the tick, sees the call as already over (`invalidState`), so at the
/// same instant the timeout always wins over an accept, decline, cancel or hang-up.
public struct CallRegistry: Sendable {
    /// Timeouts and limits.
    public let configuration: CallConfiguration

    /// Every call not yet purged, live and recently ended.
    private var calls: [CallID: Call] = [:]
    /// The calls each user takes part in (as caller or callee).
    private var callsByUser: [UserID: Set<CallID>] = [:]
    /// Client-chosen call ids: each names one call for one user only (the user who chose it), so one user's
    /// names never collide with, nor reveal, another's.
    private var aliases: [CallAlias: CallID] = [:]
    /// Every ring, grace and purge deadline set; its top is always current (stale entries are pruned
    /// after each input).
    private var deadlines = DeadlineHeap()
    /// The number of calls that have not ended.
    private var liveCount = 0

    private let ringTimeoutNs: UInt64
    private let graceNs: UInt64
    private let retentionNs: UInt64

    /// Creates an empty registry.
    public init(configuration: CallConfiguration = CallConfiguration()) {
        self.configuration = configuration
        self.ringTimeoutNs = configuration.ringTimeout.clampedNanoseconds
        self.graceNs = configuration.reconnectGrace.clampedNanoseconds
        self.retentionNs = configuration.endedRetention.clampedNanoseconds
    }

    // MARK: - Queries

    /// The call with this id (live or recently ended), whoever asks.
    public func call(_ id: CallID) -> Call? { self.calls[id] }

    /// The call `user` names `id` (its id, or the user's own client-chosen id for it), if `user` is a party.
    public func call(_ id: CallID, for user: UserID) -> Call? {
        if let call = self.calls[id], call.involves(user) { return call }
        if let real = self.aliases[CallAlias(user: user, name: id)], let call = self.calls[real] { return call }
        return nil
    }

    /// The calls `user` takes part in that have not ended, oldest first: the `active calls` snapshot a
    /// reconnecting device receives.
    public func calls(involving user: UserID) -> [Call] {
        self.sortedCalls(of: user).filter { !$0.isEnded }
    }

    /// The number of calls that have not ended.
    public var liveCallCount: Int { self.liveCount }

    /// The earliest time at which `tick(now:)` has work (a ring deadline, a grace deadline or the purge
    /// of an ended call), or nil when there is none. O(1): arm one timer for it after each input.
    public var nextDeadline: UInt64? { self.deadlines.top?.deadline }

    // MARK: - Requests

    /// Invites `callee` to a call.
    ///
    /// Rules, in order: a self call is refused; a caller with an active call or an outgoing call still
    /// ringing is refused (`alreadyInCall`); glare (the callee is already calling the caller and that
    /// call still rings) accepts that call from `callerDevice` instead of creating one; a callee in an
    /// active call makes the new call end at once as `busy`; a callee with no online device makes it
    /// end at once as `unavailable` (missed); otherwise every online device rings.
    /// - Parameters:
    ///   - callID: the call's id, or nil to generate one (a random UUID).
    ///   - alias: a client-chosen id by which the caller (only) may name the call in its later requests, also
    ///     when it joins the callee's call on glare; unique among the caller's own names and calls.
    ///   - caller: the inviting user.
    ///   - callerDevice: the device it invites from.
    ///   - callee: the invited user (the server checks friendship before).
    ///   - media: voice or video.
    ///   - calleeOnlineDevices: the callee's devices online now.
    ///   - offer: the SDP offer delivered with the ring.
    ///   - now: monotonic nanoseconds.
    /// - Returns: the call, how the invite was resolved, and the effects.
    /// - Throws: `selfCall`, `alreadyInCall`, `duplicateCallID` (`callID` in use, or `alias` already names one of
    ///   the caller's calls), `tooLarge`.
    public mutating func invite(
        callID: CallID? = nil,
        alias: CallID? = nil,
        caller: UserID,
        callerDevice: DeviceID,
        callee: UserID,
        media: CallMedia,
        calleeOnlineDevices: Set<DeviceID>,
        offer: String?,
        now: UInt64
    ) throws(CallError) -> InviteOutcome {
        defer { self.pruneDeadlines() }
        guard caller != callee else { throw .selfCall }
        if let offer, offer.utf8.count > self.configuration.maxSDPBytes {
            throw .tooLarge(limit: self.configuration.maxSDPBytes)
        }
        if let callID, self.calls[callID] != nil { throw .duplicateCallID }
        if let alias, self.call(alias, for: caller) != nil { throw .duplicateCallID }
        if self.hasActiveCall(caller) { throw .alreadyInCall }
        let callerCalls = self.liveCalls(of: caller, now: now)
        if callerCalls.contains(where: { $0.caller == caller }) { throw .alreadyInCall }
        // Glare: the callee is ringing us; join that call from the inviting device.
        if let existing = callerCalls.first(where: { $0.caller == callee && $0.callee == caller }) {
            let effects = self.acceptRinging(existing.id, device: callerDevice, answer: nil, now: now)
            if let alias { self.addAlias(alias, of: caller, for: existing.id) }
            return InviteOutcome(call: self.calls[existing.id]!, disposition: .joinedExisting, effects: effects)
        }
        let id = callID ?? CallID.random()
        let calleeBusy = self.hasActiveCall(callee)
        let ringing: Set<DeviceID> = calleeBusy ? [] : calleeOnlineDevices
        let call = Call(
            id: id, caller: caller, callerDevice: callerDevice, callee: callee, media: media, offer: offer,
            createdAt: now, ringDeadline: now.addingClamped(self.ringTimeoutNs), ringingDevices: ringing
        )
        self.calls[id] = call
        if let alias { self.addAlias(alias, of: caller, for: id) }
        self.callsByUser[caller, default: []].insert(id)
        self.callsByUser[callee, default: []].insert(id)
        self.liveCount += 1
        if calleeBusy {
            let effects = self.end(id, reason: .busy, now: now)
            return InviteOutcome(call: self.calls[id]!, disposition: .busy, effects: effects)
        }
        if calleeOnlineDevices.isEmpty {
            let effects = self.end(id, reason: .unavailable, now: now)
            return InviteOutcome(call: self.calls[id]!, disposition: .unavailable, effects: effects)
        }
        self.deadlines.push(DeadlineHeap.Entry(deadline: call.ringDeadline, callID: id))
        let effects: [CallEffect] = [
            .ring(devices: ringing, call: call),
            .ringing(callID: id, to: callerDevice, ringingDevices: ringing.count),
        ]
        return InviteOutcome(call: call, disposition: .ringing, effects: effects)
    }

    /// Accepts a ringing call from one of the callee's ringing devices. The first accept wins; the other
    /// ringing devices get `call.answered_elsewhere`; ICE candidates the caller sent while ringing are
    /// delivered to the accepting device. If the callee has an outgoing call still ringing, that call is
    /// cancelled.
    /// - Throws: `notFound`, `forbidden` (the caller, or a device not ringing), `invalidState` (not
    ///   ringing, or at/after the ring deadline), `alreadyInCall` (the callee is in an active call),
    ///   `tooLarge` (answer).
    public mutating func accept(
        _ callID: CallID, device: DeviceID, user: UserID, answer: String?, now: UInt64
    ) throws(CallError) -> [CallEffect] {
        defer { self.pruneDeadlines() }
        let call = try self.liveCall(callID, user: user, now: now)
        let callID = call.id
        guard user == call.callee else { throw .forbidden }
        guard case .ringing(_, let ringing) = call.state else { throw .invalidState }
        guard ringing.contains(device) else { throw .forbidden }
        if let answer, answer.utf8.count > self.configuration.maxSDPBytes {
            throw .tooLarge(limit: self.configuration.maxSDPBytes)
        }
        if self.hasActiveCall(user) { throw .alreadyInCall }
        let others = self.liveCalls(of: user, now: now).filter { $0.id != callID }
        var effects: [CallEffect] = []
        for other in others where other.caller == user {
            effects += self.end(other.id, reason: .cancelled, now: now)
        }
        effects += self.acceptRinging(callID, device: device, answer: answer, now: now)
        return effects
    }

    /// Declines a ringing call from one of the callee's ringing devices: the call ends as `declined`
    /// on every device.
    /// - Throws: `notFound`, `forbidden` (the caller, or a device not ringing), `invalidState`.
    public mutating func decline(
        _ callID: CallID, device: DeviceID, user: UserID, now: UInt64
    ) throws(CallError) -> [CallEffect] {
        defer { self.pruneDeadlines() }
        let call = try self.liveCall(callID, user: user, now: now)
        guard user == call.callee else { throw .forbidden }
        guard case .ringing(_, let ringing) = call.state else { throw .invalidState }
        guard ringing.contains(device) else { throw .forbidden }
        return self.end(call.id, reason: .declined, now: now)
    }

    /// Cancels a ringing call from the caller's device: the call ends as `cancelled`.
    /// - Throws: `notFound`, `forbidden` (the callee, or another device of the caller), `invalidState`
    ///   (already answered, ended, or at/after the ring deadline).
    public mutating func cancel(
        _ callID: CallID, device: DeviceID, user: UserID, now: UInt64
    ) throws(CallError) -> [CallEffect] {
        defer { self.pruneDeadlines() }
        let call = try self.liveCall(callID, user: user, now: now)
        guard user == call.caller, device == call.callerDevice else { throw .forbidden }
        guard case .ringing = call.state else { throw .invalidState }
        return self.end(call.id, reason: .cancelled, now: now)
    }

    /// Hangs up: on an active call, from either party device, ends it as `hangup` (completed). On a
    /// ringing call it acts as `cancel` from the caller's device and as `decline` from a ringing callee device.
    /// - Throws: `notFound`, `forbidden` (a device that is not a party device), `invalidState`.
    public mutating func hangup(
        _ callID: CallID, device: DeviceID, user: UserID, now: UInt64
    ) throws(CallError) -> [CallEffect] {
        defer { self.pruneDeadlines() }
        let call = try self.liveCall(callID, user: user, now: now)
        let callID = call.id
        switch call.state {
        case .ringing(_, let ringing):
            if user == call.caller && device == call.callerDevice {
                return self.end(callID, reason: .cancelled, now: now)
            }
            if user == call.callee && ringing.contains(device) {
                return self.end(callID, reason: .declined, now: now)
            }
            throw .forbidden
        case .active(_, let callerDevice, let calleeDevice):
            guard (user == call.caller && device == callerDevice) || (user == call.callee && device == calleeDevice)
            else { throw .forbidden }
            return self.end(callID, reason: .hangup, now: now)
        case .ended:
            throw .invalidState
        }
    }

    /// Relays a signal to the other device of the call.
    ///
    /// While ringing, only the caller's device may signal, and only ICE candidates: they are buffered
    /// (up to `maxBufferedCandidates`) and delivered to the device that accepts. Once active, signals
    /// travel only between the caller's device and the accepting device. Checks run in this order:
    /// membership, role and device, state, size, then the device's token bucket.
    /// - Throws: `notFound`, `forbidden`, `invalidState`, `tooLarge`, `invalidPayload`, `rateLimited`,
    ///   `candidateBufferFull`.
    public mutating func signal(
        _ callID: CallID, fromDevice device: DeviceID, user: UserID, kind: CallSignalKind, payload: String,
        now: UInt64
    ) throws(CallError) -> [CallEffect] {
        var call = try self.liveCall(callID, user: user, now: now)
        let callID = call.id
        let target: DeviceID?
        switch call.state {
        case .ringing:
            if user == call.caller {
                guard device == call.callerDevice else { throw .forbidden }
                guard kind == .iceCandidate else { throw .invalidState }
            } else {
                throw .invalidState
            }
            target = nil
        case .active(_, let callerDevice, let calleeDevice):
            if user == call.caller && device == callerDevice {
                target = calleeDevice
            } else if user == call.callee && device == calleeDevice {
                target = callerDevice
            } else {
                throw .forbidden
            }
        case .ended:
            throw .invalidState
        }
        let limit: Int
        switch kind {
        case .offer, .answer: limit = self.configuration.maxSDPBytes
        case .iceCandidate, .hold, .unhold, .media: limit = self.configuration.maxICECandidateBytes
        }
        guard payload.utf8.count <= limit else { throw .tooLarge(limit: limit) }
        var newMedia: CallMedia?
        if kind == .media {
            guard let media = CallMedia(rawValue: payload) else { throw .invalidPayload }
            newMedia = media
        }
        if target == nil && call.bufferedCandidates.count >= self.configuration.maxBufferedCandidates {
            throw .candidateBufferFull
        }
        var bucket = call.buckets[device] ?? TokenBucket(burst: self.configuration.signalBurst, now: now)
        if let wait = bucket.take(
            now: now, ratePerSecond: self.configuration.signalsPerSecond, burst: self.configuration.signalBurst
        ) {
            throw .rateLimited(retryAfterNanoseconds: wait)
        }
        call.buckets[device] = bucket
        guard let target else {
            call.bufferedCandidates.append(payload)
            self.calls[callID] = call
            return []
        }
        if let newMedia { call.media = newMedia }
        self.calls[callID] = call
        return [.relay(callID: callID, to: target, from: device, signal: CallSignal(kind: kind, payload: payload))]
    }

    // MARK: - Connection events

    /// A device's connection dropped.
    ///
    /// - The caller's device of a ringing call: the call ends as `cancelled`.
    /// - A ringing callee device: it stops ringing there (the caller gets the new count); the call keeps
    ///   ringing until its deadline even with no device left, so a device that reconnects can answer.
    /// - A party device of an active call: the grace period starts; the other device gets
    ///   `call.peer_connection_lost`; `tick` ends the call as `connection_lost` at the grace deadline.
    public mutating func deviceDisconnected(_ device: DeviceID, user: UserID, now: UInt64) -> [CallEffect] {
        defer { self.pruneDeadlines() }
        var effects: [CallEffect] = []
        for var call in self.liveCalls(of: user, now: now) {
            switch call.state {
            case .ringing(let since, var ringing):
                if user == call.caller && device == call.callerDevice {
                    effects += self.end(call.id, reason: .cancelled, now: now, excluding: [device])
                } else if user == call.callee && ringing.remove(device) != nil {
                    call.state = .ringing(since: since, ringingDevices: ringing)
                    self.calls[call.id] = call
                    effects.append(.ringing(callID: call.id, to: call.callerDevice, ringingDevices: ringing.count))
                }
            case .active:
                guard call.graceDeadlines[device] == nil, let peer = call.peer(of: device),
                    (user == call.caller) == (device == call.callerDevice)
                else { continue }
                let deadline = now.addingClamped(self.graceNs)
                call.graceDeadlines[device] = deadline
                self.calls[call.id] = call
                self.deadlines.push(DeadlineHeap.Entry(deadline: deadline, callID: call.id))
                if call.graceDeadlines[peer] == nil {
                    effects.append(.peerConnectionLost(callID: call.id, to: peer, graceDeadline: deadline))
                }
            case .ended:
                continue
            }
        }
        return effects
    }

    /// A device (re)connected: within its grace period an active call resumes (`call.resumed` to it,
    /// `call.peer_reconnected` to the other device); and if the user is the callee of ringing calls,
    /// the device starts ringing too (as `calleeDeviceCameOnline`).
    public mutating func deviceReconnected(_ device: DeviceID, user: UserID, now: UInt64) -> [CallEffect] {
        defer { self.pruneDeadlines() }
        var effects: [CallEffect] = []
        for var call in self.liveCalls(of: user, now: now) {
            guard case .active = call.state, call.graceDeadlines.removeValue(forKey: device) != nil,
                let peer = call.peer(of: device)
            else { continue }
            self.calls[call.id] = call
            effects.append(.resumed(call: call, to: device))
            if call.graceDeadlines[peer] == nil {
                effects.append(.peerReconnected(callID: call.id, to: peer))
            }
        }
        effects += self.calleeDeviceCameOnline(device, user: user, now: now)
        return effects
    }

    /// A callee device came online while calls to its user ring: it rings too (`call.ring` to it, and
    /// the caller's device gets the new count).
    public mutating func calleeDeviceCameOnline(_ device: DeviceID, user: UserID, now: UInt64) -> [CallEffect] {
        var effects: [CallEffect] = []
        for var call in self.liveCalls(of: user, now: now) where call.callee == user {
            guard case .ringing(let since, var ringing) = call.state, ringing.insert(device).inserted else {
                continue
            }
            call.state = .ringing(since: since, ringingDevices: ringing)
            self.calls[call.id] = call
            effects.append(.ring(devices: [device], call: call))
            effects.append(.ringing(callID: call.id, to: call.callerDevice, ringingDevices: ringing.count))
        }
        return effects
    }

    // MARK: - Time and shutdown

    /// Acts on every deadline at or before `now`: ringing calls end as `timeout`, active calls with an
    /// expired grace period end as `connection_lost`, ended calls past their retention are forgotten.
    /// Calls whose deadlines fall at the same instant are handled in call id order. O(k log n) for k
    /// deadlines due.
    public mutating func tick(now: UInt64) -> [CallEffect] {
        defer { self.pruneDeadlines() }
        var effects: [CallEffect] = []
        while let entry = self.deadlines.top, entry.deadline <= now {
            self.deadlines.pop()
            guard let call = self.calls[entry.callID], Self.currentDeadline(of: call) == entry.deadline else {
                continue
            }
            switch call.state {
            case .ringing: effects += self.end(call.id, reason: .timeout, now: now)
            case .active: effects += self.end(call.id, reason: .connectionLost, now: now)
            case .ended: self.forget(call)
            }
        }
        return effects
    }

    /// The calls in progress (ringing or active), oldest first.
    public var liveCalls: [Call] { self.calls.values.filter { !$0.isEnded }.sorted(by: Self.order) }

    /// Ends every call in progress as `server_shutdown` (one record each).
    public mutating func shutdown(now: UInt64) -> [CallEffect] {
        defer { self.pruneDeadlines() }
        var effects: [CallEffect] = []
        for call in self.calls.values.sorted(by: Self.order) where !call.isEnded {
            effects += self.end(call.id, reason: .serverShutdown, now: now)
        }
        return effects
    }

    // MARK: - Internals

    private static func order(_ a: Call, _ b: Call) -> Bool {
        a.createdAt != b.createdAt ? a.createdAt < b.createdAt : a.id < b.id
    }

    private func sortedCalls(of user: UserID) -> [Call] {
        (self.callsByUser[user] ?? []).compactMap { self.calls[$0] }.sorted(by: Self.order)
    }

    /// The deadline at which `tick` next acts on the call.
    private static func currentDeadline(of call: Call) -> UInt64? {
        switch call.state {
        case .ringing: call.ringDeadline
        case .active: call.graceDeadlines.values.min()
        case .ended: call.purgeAt
        }
    }

    /// Pops heap entries that no longer apply (the call moved on or was forgotten) until the top is current.
    private mutating func pruneDeadlines() {
        while let entry = self.deadlines.top {
            if let call = self.calls[entry.callID], Self.currentDeadline(of: call) == entry.deadline { return }
            self.deadlines.pop()
        }
    }

    /// Whether a deadline of the call has passed (it awaits `tick`).
    private static func isExpired(_ call: Call, now: UInt64) -> Bool {
        switch call.state {
        case .ringing: now >= call.ringDeadline
        case .active: call.graceDeadlines.values.contains { $0 <= now }
        case .ended: true
        }
    }

    /// Whether the user is in an active call. A call past its grace deadline counts until `tick` ends
    /// it, so that a user is never in two active calls.
    private func hasActiveCall(_ user: UserID) -> Bool {
        (self.callsByUser[user] ?? []).contains { id in
            if case .active = self.calls[id]?.state { return true }
            return false
        }
    }

    /// The user's calls that have not ended and whose deadlines have not passed.
    private func liveCalls(of user: UserID, now: UInt64) -> [Call] {
        self.sortedCalls(of: user).filter { !Self.isExpired($0, now: now) }
    }

    /// The call `user` names `id` (its id or the user's alias) if `user` is a party and it is live; `notFound`
    /// or `invalidState` otherwise.
    private func liveCall(_ id: CallID, user: UserID, now: UInt64) throws(CallError) -> Call {
        guard let call = self.call(id, for: user) else { throw .notFound }
        guard !Self.isExpired(call, now: now) else { throw .invalidState }
        return call
    }

    private mutating func acceptRinging(_ id: CallID, device: DeviceID, answer: String?, now: UInt64) -> [CallEffect] {
        guard var call = self.calls[id], case .ringing(_, let ringing) = call.state else { return [] }
        call.state = .active(since: now, callerDevice: call.callerDevice, calleeDevice: device)
        call.acceptedDevice = device
        call.answeredAt = now
        let buffered = call.bufferedCandidates
        call.bufferedCandidates = []
        self.calls[id] = call
        var effects: [CallEffect] = []
        let others = ringing.subtracting([device])
        if !others.isEmpty { effects.append(.answeredElsewhere(callID: id, devices: others)) }
        effects.append(.accepted(callID: id, to: call.callerDevice, by: device, answer: answer))
        for candidate in buffered {
            effects.append(
                .relay(
                    callID: id, to: device, from: call.callerDevice,
                    signal: CallSignal(kind: .iceCandidate, payload: candidate)
                )
            )
        }
        return effects
    }

    /// Ends a call: `call.ended` to its connected devices and exactly one record.
    private mutating func end(
        _ id: CallID, reason: CallEndReason, now: UInt64, excluding: Set<DeviceID> = []
    ) -> [CallEffect] {
        guard var call = self.calls[id] else { return [] }
        var notify: Set<DeviceID>
        switch call.state {
        case .ringing(_, let ringing): notify = ringing.union([call.callerDevice])
        case .active(_, let callerDevice, let calleeDevice): notify = [callerDevice, calleeDevice]
        case .ended: return []
        }
        notify.subtract(call.graceDeadlines.keys)
        notify.subtract(excluding)
        call.state = .ended(reason: reason)
        call.endedAt = now
        let purgeAt = now.addingClamped(self.retentionNs)
        call.purgeAt = purgeAt
        call.bufferedCandidates = []
        call.buckets = [:]
        self.calls[id] = call
        self.liveCount -= 1
        self.deadlines.push(DeadlineHeap.Entry(deadline: purgeAt, callID: id))
        let duration = call.answeredAt.map { now >= $0 ? now - $0 : 0 } ?? 0
        let record = CallRecord(
            callID: id, caller: call.caller, callerDevice: call.callerDevice, callee: call.callee,
            calleeDevice: call.acceptedDevice, media: call.media, outcome: reason.outcome, reason: reason,
            startedAt: call.createdAt, answeredAt: call.answeredAt, endedAt: now,
            durationMilliseconds: Int64(duration / 1_000_000)
        )
        return [.ended(call: call, reason: reason, notify: notify, durationNanoseconds: duration), .record(record)]
    }

    private mutating func addAlias(_ name: CallID, of user: UserID, for id: CallID) {
        let alias = CallAlias(user: user, name: name)
        self.aliases[alias] = id
        self.calls[id]?.aliases.append(alias)
    }

    private mutating func forget(_ call: Call) {
        for alias in self.calls[call.id]?.aliases ?? [] { self.aliases[alias] = nil }
        self.calls[call.id] = nil
        for user in [call.caller, call.callee] {
            self.callsByUser[user]?.remove(call.id)
            if self.callsByUser[user]?.isEmpty == true { self.callsByUser[user] = nil }
        }
    }
}
