//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardClient
import SwitchboardLoadKit
import SwitchboardTransport

/// Monotonic nanoseconds (one clock for the whole process, so a send time carried in a message's client id
/// can be compared with the receipt time at another client of the same process).
func now() -> UInt64 { EventLoop.now() }

/// Writes a line to stderr (progress; the report goes to stdout).
func note(_ text: String) {
    let line = text + "\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
}

/// Everything the run's tasks and the clients' event handlers share. Every mutable piece sits in a `Locked`.
final class Harness: Sendable {
    let clients: [SwitchboardClient]
    let users: [LoadUser]
    let userIndex: [Int64: Int]
    let conversations: [LoadConversation]
    /// Client index -> indexes into `conversations`.
    let conversationsOf: [[Int]]
    /// Indexes into `conversations` of the groups.
    let groupIndexes: [Int]
    let recorder = LatencyRecorder()
    let ledger: Locked<DeliveryLedger>
    let operations = Locked([String: OperationCount]())
    let errors = Locked([String: Int]())
    /// Errors kept for the report (the first 20).
    let errorSamples = Locked([String]())
    let calls = Locked([String: CallPlan]())
    /// Clients in a call (either side) or with an invitation on the way.
    let inCall = Locked(Set<Int>())
    /// (conversation, user) -> when the typing request was sent.
    let typingSent = Locked([TypingKey: UInt64]())
    /// user id -> (status, when presence.set was sent).
    let presenceSent = Locked([Int64: PresenceMark]())
    /// Client index -> when its connection was dropped; removed when its resume finished.
    let recovering = Locked([Int: UInt64]())
    /// Client index -> when its connection was last dropped or lost to a kill (kept after it recovered).
    let lastDrop = Locked([Int: UInt64]())
    /// Clients whose connection the recovery check dropped.
    let dropped = Locked(Set<Int>())
    /// The kill switch (`--kill-pid`, `--kill-at`), if any.
    let killPlan: KillPlan?
    /// When the kill switch fired (nil before).
    let killedAt = Locked<UInt64?>(nil)
    /// Clients whose connection was lost within the kill's attribution window: the killed nodes' clients.
    let killed = Locked(Set<Int>())
    /// Operations that failed only because the drop or a kill cut their connection (not counted as errors).
    let interrupted = Locked([String: Int]())
    /// Operations started and not finished.
    let inFlight = Locked(0)
    /// `account.export_ready` events by export id: when each came and the export's state.
    let exportsReady = Rendezvous<String>()
    /// The community's publications by k: when `events.create` was sent and the event's id.
    let published = Locked([Int: (sent: UInt64, eventId: Int64)]())
    /// Publication k -> the clients its `community.notification` reached.
    let notificationReceipts = Locked([Int: Set<Int>]())
    /// Social (issue 18): whether the clients keep their home pages live (set up by `SocialPlan.make`).
    let socialLive = Locked(false)
    /// Post k of the mix: when `post.create` was sent, the post's id and its author's client.
    let socialPosts = Locked([Int: (sent: UInt64, postId: Int64, author: Int)]())
    /// Post k -> the clients whose home page got its `post.new`.
    let postReceipts = Locked([Int: Set<Int>]())
    /// Posts made at setup (something to like before the mix has posted).
    let socialSeedPosts = Locked([Int64]())
    /// Post id -> the clients whose like of it succeeded.
    let socialLikes = Locked([Int64: Set<Int>]())
    /// Posts with a like whose reply was lost (their counts are not checked).
    let socialLikesUncertain = Locked(Set<Int64>())
    /// Follows the mix added outside the ring (follower * clients + followee), and pairs being toggled.
    let extraFollows = Locked((active: Set<Int>(), busy: Set<Int>()))
    let ringTimeout: Double
    let callHold: Double

    struct TypingKey: Hashable, Sendable {
        let conversationId: Int64
        let userId: Int64
    }

    struct PresenceMark: Sendable {
        let status: String
        let sent: UInt64
        /// Distinguishes marks, so each friend takes one mark's event once.
        let serial: Int
    }

    /// (friend client, user id) -> the serial of the last presence mark that friend's event was matched to:
    /// a later event with the same status (a login device of that user coming and going) is not the mark's.
    let presenceTaken = Locked([PresenceKey: Int]())
    let presenceSerial = Locked(0)

    struct PresenceKey: Hashable, Sendable {
        let client: Int
        let userId: Int64
    }

    init(
        clients: [SwitchboardClient], users: [LoadUser], conversations: [LoadConversation], baselines: [Int64: Int64],
        ringTimeout: Double, callHold: Double, killPlan: KillPlan?
    ) {
        self.killPlan = killPlan
        self.clients = clients
        self.users = users
        var index: [Int64: Int] = [:]
        for u in users { index[u.userId] = u.index }
        userIndex = index
        self.conversations = conversations
        var of = [[Int]](repeating: [], count: users.count)
        var ledger = DeliveryLedger()
        for (k, c) in conversations.enumerated() {
            for m in c.members { of[m].append(k) }
            ledger.add(conversationId: c.id, members: c.members, baseline: baselines[c.id] ?? 0)
        }
        conversationsOf = of
        groupIndexes = conversations.indices.filter { conversations[$0].isGroup }
        self.ledger = Locked(ledger)
        self.ringTimeout = ringTimeout
        self.callHold = callHold
    }

    // MARK: bookkeeping

    func planned(_ op: String, _ count: Int) {
        operations.withLock { $0[op, default: OperationCount()].planned += count }
    }

    func started(_ op: String) {
        operations.withLock { $0[op, default: OperationCount()].started += 1 }
        inFlight.withLock { $0 += 1 }
    }

    func succeeded(_ op: String) {
        operations.withLock { $0[op, default: OperationCount()].succeeded += 1 }
        inFlight.withLock { $0 -= 1 }
    }

    func failed(_ op: String, code: String, detail: String) {
        operations.withLock { $0[op, default: OperationCount()].failed += 1 }
        inFlight.withLock { $0 -= 1 }
        errors.withLock { $0["\(op): \(code)", default: 0] += 1 }
        errorSamples.withLock { if $0.count < 20 { $0.append("\(op): \(detail)") } }
    }

    func failed(_ op: String, _ error: SwitchboardClientError) {
        failed(op, code: Self.code(of: error), detail: "\(error)")
    }

    static func code(of error: SwitchboardClientError) -> String {
        switch error {
        case .server(let e): return e.code
        case .timeout: return "timeout"
        case .connectionLost: return "connection_lost"
        case .connectFailed: return "connect_failed"
        case .closed: return "closed"
        case .tooManyQueuedRequests: return "too_many_queued"
        case .invalidMessage: return "invalid_message"
        case .cancelled: return "cancelled"
        }
    }

    /// Records a failure; one whose connection the drop or a kill cut counts as interrupted instead.
    func fail(_ op: String, client: Int, since start: UInt64, _ error: SwitchboardClientError) {
        if let dropped = lastDrop.withLock({ $0[client] }), dropped >= start {
            interrupt(op)
        } else if Self.isConnectionError(error), attributeToKill(client) {
            interrupt(op)
        } else {
            failed(op, error)
        }
    }

    /// An operation started and was cut by a lost connection: neither a success nor an error.
    func interrupt(_ op: String) {
        inFlight.withLock { $0 -= 1 }
        interrupted.withLock { $0[op, default: 0] += 1 }
    }

    static func isConnectionError(_ error: SwitchboardClientError) -> Bool {
        switch error {
        case .connectionLost, .connectFailed: return true
        default: return false
        }
    }

    /// Whether the kill switch fired and its attribution window is still open.
    func killWindowOpen() -> Bool {
        guard let killPlan else { return false }
        return killPlan.attributes(lostAt: now(), killedAt: killedAt.withLock { $0 })
    }

    /// Takes the client's lost connection as caused by the kill when its window is open: the client must then
    /// fail over and resume like a dropped one. Returns whether it did.
    @discardableResult
    func attributeToKill(_ client: Int) -> Bool {
        guard killWindowOpen(), let t = killedAt.withLock({ $0 }) else { return false }
        // A client the recovery check dropped at or after the kill is the drop's.
        let taken = recovering.withLock { r -> Bool in
            if let since = r[client], since >= t, !killed.withLock({ $0.contains(client) }) { return false }
            if r[client] == nil { r[client] = t }
            return true
        }
        guard taken else { return false }
        lastDrop.withLock { $0[client] = max($0[client] ?? 0, t) }
        killed.withLock { _ = $0.insert(client) }
        presenceSent.withLock { $0[users[client].userId] = nil }
        return true
    }

    /// Records a latency unless the client's connection was dropped while the operation ran (its reply then
    /// waited for the reconnect: that is recovery time, not the server's latency).
    func record(_ metric: String, client: Int, since start: UInt64) {
        if let droppedAt = lastDrop.withLock({ $0[client] }), droppedAt >= start { return }
        recorder.record(metric, nanoseconds: now() &- start)
    }

    /// Records a latency that ended at `end` (an event's arrival), with `record(_:client:since:)`'s drop rule.
    func record(_ metric: String, client: Int, from start: UInt64, to end: UInt64) {
        if let droppedAt = lastDrop.withLock({ $0[client] }), droppedAt >= start { return }
        recorder.record(metric, nanoseconds: end &- start)
    }

    /// Whether a client may act now (not recovering from a drop).
    func isAvailable(_ client: Int) -> Bool { recovering.withLock { $0[client] == nil } }

    // MARK: events

    /// Consumes a client's events until its stream ends.
    func consumeEvents(of client: Int) async {
        for await event in clients[client].events {
            handle(event, client: client)
        }
    }

    func handle(_ event: ClientEvent, client: Int) {
        switch event {
        case .message(let m):
            ledger.withLock { $0.delivered(client: client, conversationId: m.conversationId, seq: m.seq) }
            guard let cid = m.clientId, let (kind, sent) = Self.parseClientId(cid) else { return }
            let t = now()
            if recovering.withLock({ $0[client] != nil }) {
                recorder.record(Metric.recoveredDelivery, nanoseconds: t &- sent)
            } else {
                recorder.record(kind == "lv" ? Metric.uploadToDelivery : Metric.sendToDelivery, nanoseconds: t &- sent)
            }
        case .resumed:
            recovering.withLock { _ = $0.removeValue(forKey: client) }
            // Live subscriptions die with a connection: subscribe the home page again.
            if socialLive.withLock({ $0 }) {
                let c = clients[client]
                Task { _ = try? await c.subscribeLive(["home"]) }
            }
        case .disconnected:
            attributeToKill(client)
        case .typing(let u) where u.active:
            if let sent = typingSent.withLock({ $0[TypingKey(conversationId: u.conversationId, userId: u.userId)] }) {
                recorder.record(Metric.typingToPeer, nanoseconds: now() &- sent)
            }
        case .presence(let p):
            guard let mark = presenceSent.withLock({ $0[p.userId] }), mark.status == p.status else { return }
            let fresh = presenceTaken.withLock { taken -> Bool in
                let key = PresenceKey(client: client, userId: p.userId)
                if taken[key] == mark.serial { return false }
                taken[key] = mark.serial
                return true
            }
            if fresh {
                recorder.record(presenceMetric(userId: p.userId, sent: mark.sent), nanoseconds: now() &- mark.sent)
            }
        case .other(let raw) where raw.name.hasPrefix("call."):
            handleCallEvent(raw, client: client)
        case .other(let raw) where raw.name == "community.notification":
            // The title of a publication of the run carries its send time (`CommunityPlan.title`); setup events do not.
            // Found by a scan of the frame, not a JSON decode: 2,000 decodes per publication on the generator's one
            // core held every other client's events (a call's 20 ms budget) behind them.
            let t = arrival(raw)
            guard let (sent, k) = RunMarker.find(in: raw.frame) else { return }
            let first = notificationReceipts.withLock { $0[k, default: []].insert(client).inserted }
            if first { record(Metric.eventToNotification, client: client, from: sent, to: t) }
        case .other(let raw) where raw.name == "post.new":
            // The text of a post of the mix carries its send time (`SocialPlan.text`).
            let t = arrival(raw)
            guard let (sent, k) = RunMarker.find(in: raw.frame) else { return }
            let first = postReceipts.withLock { $0[k, default: []].insert(client).inserted }
            if first { record(Metric.postToLive, client: client, from: sent, to: t) }
        case .other(let raw) where raw.name == "account.export_ready":
            // Every device of the user gets it (a login's device too): the first arrival counts.
            if let ready = try? raw.decode(ExportReadyFields.self) {
                exportsReady.arrived(ready.export.exportId, at: now(), ready.export.state)
            }
        default:
            break
        }
    }

    /// Presence set by a killed node's client within the kill's window goes to its own metric (the dead node's
    /// device counts toward the user's presence until the cluster expires it).
    func presenceMetric(userId: Int64, sent: UInt64) -> String {
        guard let killPlan, let killTime = killedAt.withLock({ $0 }), let client = userIndex[userId],
            killed.withLock({ $0.contains(client) }), sent <= killTime + UInt64(killPlan.attributionWindow * 1e9)
        else { return Metric.presenceToFriend }
        return Metric.presenceAfterKill
    }

    /// `lt.<send time ns>.<n>` (text) or `lv.<upload start ns>.<n>` (voice).
    static func parseClientId(_ id: String) -> (String, UInt64)? {
        let parts = id.split(separator: ".")
        guard parts.count == 3, parts[0] == "lt" || parts[0] == "lv", let t = UInt64(parts[1]) else { return nil }
        return (String(parts[0]), t)
    }

    // MARK: calls

    private struct CallEventFields: Decodable {
        var callId: String
        var reason: String?
        var kind: String?
        var payload: String?
    }

    /// The fields of `account.export_ready` the run needs.
    struct ExportReadyFields: Decodable {
        struct Export: Decodable {
            var exportId: Int64
            var state: String
        }
        var export: Export
    }

    /// When the client read an event's frame (its latencies end there, not when this consumer got to it), or now
    /// for an event without the time.
    func arrival(_ raw: RawEvent) -> UInt64 { raw.receivedAt != 0 ? raw.receivedAt : now() }

    func handleCallEvent(_ raw: RawEvent, client: Int) {
        guard let fields = try? raw.decode(CallEventFields.self) else { return }
        // Events carry the server's id; the plans are kept under the caller's name. A callee learns the server's id
        // from its ring (each user is in at most one call at a time).
        let isRing = raw.name == "call.ring"
        guard
            let id = calls.withLock({ p -> String? in
                if let key = p.first(where: { $0.value.serverId == fields.callId })?.key { return key }
                guard isRing, let key = p.first(where: { $0.value.callee == client && $0.value.serverId == nil })?.key
                else { return nil }
                p[key]!.serverId = fields.callId
                return key
            })
        else { return }
        let t = arrival(raw)
        switch raw.name {
        case "call.ring":
            guard
                let plan = calls.withLock({ p -> CallPlan? in
                    guard p[id]?.callee == client, p[id]?.rung == false else { return nil }
                    p[id]!.rung = true
                    return p[id]
                })
            else { return }
            recorder.record(Metric.inviteToRing, nanoseconds: t &- plan.invited)
            switch plan.outcome {
            case .answered:
                Task { await self.accept(id, callee: client) }
            case .declined:
                Task { await self.decline(id, callee: client) }
            case .timeout:
                break
            }
        case "call.accepted":
            guard let plan = calls.withLock({ $0[id] }), plan.caller == client else { return }
            record(Metric.acceptToCallerTold, client: client, from: plan.acceptSent, to: t)
            Task { await self.sendCandidates(id, caller: client) }
        case "call.signal":
            guard fields.kind == "ice_candidate", let payload = fields.payload, let k = Self.candidateIndex(payload)
            else { return }
            let (sentAt, done) = calls.withLock { p -> (UInt64?, Bool) in
                guard var plan = p[id], plan.callee == client, k < plan.signalsSent.count else { return (nil, false) }
                plan.signalsReceived += 1
                p[id] = plan
                return (plan.signalsSent[k], plan.signalsReceived == 2)
            }
            if let sentAt { recorder.record(Metric.signalRelay, nanoseconds: t &- sentAt) }
            if done { Task { await self.hangUp(id) } }
        case "call.ended":
            let reason = fields.reason ?? "?"
            let (plan, finished) = calls.withLock { p -> (CallPlan?, Bool) in
                guard var plan = p[id] else { return (nil, false) }
                if plan.caller == client { plan.callerEnded = true }
                if plan.callee == client { plan.calleeEnded = true }
                p[id] = plan
                return (plan, plan.callerEnded && (plan.calleeEnded || plan.outcome != .answered))
            }
            guard let plan else { return }
            if client == plan.callee && plan.outcome == .answered && reason == "hangup" {
                record(Metric.hangupToPeerTold, client: client, from: plan.hangupSent, to: t)
            }
            if client == plan.caller {
                switch (plan.outcome, reason) {
                case (.declined, "declined"):
                    record(Metric.declineToCallerTold, client: client, from: plan.declineSent, to: t)
                case (.timeout, "timeout"):
                    let deadline = plan.invited + UInt64(ringTimeout * 1e9)
                    if t > deadline { recorder.record(Metric.timeoutToCallerTold, nanoseconds: t - deadline) }
                case (.answered, "hangup"):
                    break
                default:
                    // Ended otherwise than planned: the call failed (or a kill took a party's server).
                    calls.withLock { _ = $0.removeValue(forKey: id) }
                    inCall.withLock {
                        $0.remove(plan.caller); $0.remove(plan.callee)
                    }
                    if lostToKill(plan) {
                        interrupt("call")
                    } else {
                        failed(
                            "call", code: "ended_\(reason)",
                            detail: "call \(id) (\(plan.outcome.rawValue)) ended: \(reason)")
                    }
                    return
                }
            }
            if finished {
                calls.withLock { _ = $0.removeValue(forKey: id) }
                inCall.withLock {
                    $0.remove(plan.caller); $0.remove(plan.callee)
                }
                succeeded("call")
            }
        default:
            break
        }
    }

    /// Starts a call of the mix between two friends.
    func invite(caller: Int, callee: Int, outcome: CallOutcome, n: Int) async {
        let id = "lc-\(n)-\(UInt32.random(in: 0...UInt32.max))"
        let plan = CallPlan(callId: id, caller: caller, callee: callee, outcome: outcome, invited: now())
        calls.withLock { $0[id] = plan }
        started("call")
        do {
            let reply = try await clients[caller].request(
                op: "call.invite",
                params: [
                    "callee_id": .int(users[callee].userId), "media": "voice", "call_id": .string(id),
                    "offer": .string(SDP.offer(sessionId: UInt64(n))),
                ] as JSONValue)
            let object = reply.jsonObject()
            if let serverId = (object["call"] as? [String: Any])?["call_id"] as? String {
                calls.withLock { p in if p[id] != nil, p[id]!.serverId == nil { p[id]!.serverId = serverId } }
            }
            let disposition = object["disposition"] as? String ?? "?"
            if disposition != "ringing" {
                endFailed(id, code: "disposition_\(disposition)", detail: "call \(id): disposition \(disposition)")
            }
        } catch {
            endFailed(id, code: Self.code(of: error), detail: "call.invite: \(error)")
        }
    }

    private func endFailed(_ id: String, code: String, detail: String) {
        guard let plan = calls.withLock({ $0.removeValue(forKey: id) }) else { return }
        inCall.withLock {
            $0.remove(plan.caller); $0.remove(plan.callee)
        }
        if lostToKill(plan) {
            interrupt("call")
        } else {
            failed("call", code: code, detail: detail)
        }
    }

    /// Whether a party of the call lost its server to the kill switch, or the kill's window is open.
    private func lostToKill(_ plan: CallPlan) -> Bool {
        guard killedAt.withLock({ $0 }) != nil else { return false }
        return killWindowOpen() || killed.withLock { $0.contains(plan.caller) || $0.contains(plan.callee) }
    }

    /// After a kill: calls invited before its attribution window closed with a party among the killed clients,
    /// still unfinished, are given up as interrupted (their node's call state died with it). Returns how many.
    @discardableResult
    func abandonCallsOfKilledClients() -> Int {
        guard let killPlan, let killTime = killedAt.withLock({ $0 }) else { return 0 }
        let windowEnd = killTime + UInt64(killPlan.attributionWindow * 1e9)
        let gone = killed.withLock { $0 }
        let plans = calls.withLock { p -> [CallPlan] in
            let ids = p.filter {
                $0.value.invited <= windowEnd && (gone.contains($0.value.caller) || gone.contains($0.value.callee))
            }
            .map(\.key)
            return ids.compactMap { p.removeValue(forKey: $0) }
        }
        for plan in plans {
            inCall.withLock {
                $0.remove(plan.caller); $0.remove(plan.callee)
            }
            interrupt("call")
        }
        return plans.count
    }

    private func accept(_ id: String, callee: Int) async {
        calls.withLock { $0[id]?.acceptSent = now() }
        do {
            try await clients[callee].request(
                op: "call.accept",
                params: ["call_id": .string(serverId(id)), "answer": .string(SDP.answer(sessionId: 1))] as JSONValue)
        } catch {
            endFailed(id, code: Self.code(of: error), detail: "call.accept: \(error)")
        }
    }

    private func decline(_ id: String, callee: Int) async {
        calls.withLock { $0[id]?.declineSent = now() }
        do {
            try await clients[callee].request(
                op: "call.decline", params: ["call_id": .string(serverId(id))] as JSONValue)
        } catch {
            endFailed(id, code: Self.code(of: error), detail: "call.decline: \(error)")
        }
    }

    private func sendCandidates(_ id: String, caller: Int) async {
        for k in 0..<2 {
            calls.withLock { $0[id]?.signalsSent.append(now()) }
            do {
                try await clients[caller].request(
                    op: "call.signal",
                    params: [
                        "call_id": .string(id), "kind": "ice_candidate",
                        "payload": .string(Self.candidate(k)),
                    ] as JSONValue)
            } catch {
                endFailed(id, code: Self.code(of: error), detail: "call.signal: \(error)")
                return
            }
        }
    }

    /// The server's id of the call the caller named `id` (the callee must use it).
    private func serverId(_ id: String) -> String { calls.withLock { $0[id]?.serverId } ?? id }

    /// ICE candidate `k` as the JSON of an `RTCIceCandidateInit` (what browsers send); `k` is its last field.
    static func candidate(_ k: Int) -> String {
        #"""
        {"candidate":"candidate:\#(k + 1) 1 udp 2122260223 192.0.2.\#(k + 1) \#(50000 + k) typ host generation \#(k)",\#
        "sdpMid":"0","sdpMLineIndex":0}
        """#
    }

    /// The `k` of `candidate(k)`, from a relayed payload.
    static func candidateIndex(_ payload: String) -> Int? {
        struct Init: Decodable { var candidate: String }
        guard let line = try? JSONDecoder().decode(Init.self, from: Data(payload.utf8)).candidate else { return nil }
        return line.split(separator: " ").last.flatMap { Int($0) }
    }

    private func hangUp(_ id: String) async {
        try? await Task.sleep(nanoseconds: UInt64(callHold * 1e9))
        guard
            let caller = calls.withLock({ p -> Int? in
                p[id]?.hangupSent = now()
                return p[id]?.caller
            })
        else { return }
        do {
            try await clients[caller].request(op: "call.hangup", params: ["call_id": .string(id)] as JSONValue)
        } catch {
            endFailed(id, code: Self.code(of: error), detail: "call.hangup: \(error)")
        }
    }
}
