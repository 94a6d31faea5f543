//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCalls
import SwitchboardCore
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

extension ProtocolApplication {
    /// The `call.*` ops (routed here by `handle`).
    static let callOps: Set<String> = [
        "call.invite", "call.accept", "call.decline", "call.cancel", "call.hangup", "call.signal", "call.turn", "call.history",
    ]

    struct InviteParams: Decodable {
        var calleeId: Int64
        var media: String?
        var callId: String?
        var offer: String?
    }
    struct CallIDParams: Decodable { var callId: String }
    struct TurnParams: Decodable { var callId: String? }
    /// A browser's `RTCIceCandidateInit`: the payload of an `ice_candidate` signal (`docs/protocol.md`, Calls).
    struct CandidateInit: Decodable {
        var candidate: String
        var sdpMid: String?
        var sdpMLineIndex: Int64?
        var usernameFragment: String?
    }
    struct AcceptParams: Decodable {
        var callId: String
        var answer: String?
    }
    struct SignalParams: Decodable {
        var callId: String
        var kind: String
        var payload: String
    }
    struct CallHistoryParams: Decodable {
        var before: String?
        var limit: Int?
    }
    typealias CallHistoryEntry = CallRecordRepository.Entry
    struct CallHistoryResult: Encodable, Sendable {
        var calls: [CallHistoryEntry]
        var hasMore: Bool
    }

    /// A reply made of raw JSON for `ok`.
    static func rawReply(_ id: RequestID, _ ok: [UInt8]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ok")
        w.raw(ok)
        w.key("re")
        switch id {
        case .int(let i): w.int(i)
        case .string(let s): w.string(s)
        }
        w.endObject()
        return w.bytes
    }

    /// Handles one `call.*` request of an authenticated connection. Runs on the connection's loop.
    func handleCall(_ envelope: RequestEnvelope, identity: Identity) {
        let id = envelope.id
        let me = identity.userId
        let calls = services.calls
        let registry = services.registry
        let pool = services.accounts.pool
        guard let device else { return }
        let deviceID = DeviceID(identity.sessionId)
        let user = UserID(me)
        let empty: [UInt8] = Array("{}".utf8)
        switch envelope.op {
        case "call.invite":
            guard let p = params(InviteParams.self, envelope) else { return }
            guard let media = CallMedia(rawValue: p.media ?? "voice") else {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "media must be voice or video"))
                return
            }
            if let callId = p.callId, !validCallID(callId, id) { return }
            let callee = p.calleeId
            guard callee != me else {
                session.send(.text, ProtocolCodec.encodeError(id: id, code: .selfCall, message: "you cannot call yourself"))
                return
            }
            // Friendship and the caller's name from the database, then the state machine.
            let presence = services.presence
            run(id, { () async throws(ServiceError) -> String in
                // The caller is online, so its friend list is usually in the presence hub and its name in the
                // call service: then the database is not on the invite's path.
                if let known = await presence.caller(me, friendOf: callee) {
                    guard known.friends else { throw ServiceError(.notFriends, "you can only call friends") }
                    return known.name
                }
                do {
                    return try await pool.withConnection { db in
                        guard try FriendRepository.areFriends(db, me, callee) else { throw ServiceError(.notFriends, "you can only call friends") }
                        return try UserRepository.displayName(db, of: me) ?? ""
                    }
                } catch { throw ServiceError.from(error) }
            }, replyWith: { _, name in
                calls.setName(name, of: me)
                let online = Set(registry.sessions(ofUser: callee).map(DeviceID.init))
                calls.perform(origin: device, id: id) { (registry: inout CallRegistry, now: UInt64) throws(CallError) in
                    let outcome = try registry.invite(
                        alias: p.callId.map(CallID.init), caller: user, callerDevice: deviceID, callee: UserID(callee), media: media,
                        calleeOnlineDevices: online, offer: p.offer, now: now)
                    var w = JSONWriter()
                    w.beginObject()
                    w.key("call")
                    // The offer only on glare: the joining device answers the other side's offer.
                    CallService.write(
                        registry.call(outcome.call.id) ?? outcome.call, &w, offer: outcome.disposition == .joinedExisting)
                    w.key("disposition")
                    switch outcome.disposition {
                    case .ringing: w.string("ringing")
                    case .unavailable: w.string("unavailable")
                    case .busy: w.string("busy")
                    case .joinedExisting: w.string("joined")
                    }
                    w.endObject()
                    return (w.bytes, outcome.effects)
                }
            })
        case "call.accept":
            guard let p = params(AcceptParams.self, envelope), validCallID(p.callId, id) else { return }
            calls.perform(origin: device, id: id) { (registry: inout CallRegistry, now: UInt64) throws(CallError) in
                let effects = try registry.accept(CallID(p.callId), device: deviceID, user: user, answer: p.answer, now: now)
                var w = JSONWriter()
                w.beginObject()
                w.key("call")
                if let call = registry.call(CallID(p.callId), for: user) { CallService.write(call, &w) } else { w.raw("null") }
                w.endObject()
                return (w.bytes, effects)
            }
        case "call.decline", "call.cancel", "call.hangup":
            guard let p = params(CallIDParams.self, envelope), validCallID(p.callId, id) else { return }
            let op = envelope.op
            calls.perform(origin: device, id: id) { (registry: inout CallRegistry, now: UInt64) throws(CallError) in
                let callId = CallID(p.callId)
                let effects: [CallEffect]
                switch op {
                case "call.decline": effects = try registry.decline(callId, device: deviceID, user: user, now: now)
                case "call.cancel": effects = try registry.cancel(callId, device: deviceID, user: user, now: now)
                default: effects = try registry.hangup(callId, device: deviceID, user: user, now: now)
                }
                return (empty, effects)
            }
        case "call.signal":
            guard let p = params(SignalParams.self, envelope), validCallID(p.callId, id) else { return }
            guard let kind = CallSignalKind(rawValue: p.kind) else {
                fail(
                    id,
                    ProtocolError(
                        id: id, code: .badRequest,
                        message: "kind must be one of \(CallSignalKind.allCases.map(\.rawValue).joined(separator: ", "))"))
                return
            }
            // An oversized payload is left to the registry (payload_too_large).
            if kind == .iceCandidate, p.payload.utf8.count <= calls.settings.maxICECandidateBytes,
                let problem = Self.candidateProblem(p.payload)
            {
                fail(id, ProtocolError(id: id, code: .badRequest, message: problem))
                return
            }
            calls.perform(origin: device, id: id) { (registry: inout CallRegistry, now: UInt64) throws(CallError) in
                let effects = try registry.signal(CallID(p.callId), fromDevice: deviceID, user: user, kind: kind, payload: p.payload, now: now)
                return (empty, effects)
            }
        case "call.turn":
            guard let p = params(TurnParams.self, envelope) else { return }
            if let callId = p.callId, !validCallID(callId, id) { return }
            if let retryAfter = calls.turnLimiter.attempt(me, now: EventLoop.now()).retryAfterMilliseconds {
                session.send(
                    .text,
                    ProtocolCodec.encodeError(
                        id: id, code: .rateLimited, message: "too many TURN credential requests", extra: ["retry_after_ms": retryAfter]))
                return
            }
            let settings = calls.settings
            calls.perform(origin: device, id: id) { (registry: inout CallRegistry, now: UInt64) throws(CallError) in
                // Without a call (before the invite, as browsers need it for their offer) or for a call of yours in progress.
                if let callId = p.callId {
                    guard let call = registry.call(CallID(callId), for: user), !call.isEnded else { throw .notFound }
                }
                let credentials = settings.turnSecret.map {
                    TURNCredentials.make(
                        sharedSecret: $0, userID: user, ttl: settings.turnTTL, now: Int64(Date().timeIntervalSince1970),
                        uris: settings.turnURIs)
                }
                return (Self.turnReply(settings, credentials), [])
            }
        case "call.history":
            guard let p = params(CallHistoryParams.self, envelope) else { return }
            // Checked before any arithmetic (limit + 1) and before the database sees `before`.
            let limit = p.limit ?? 20
            guard (1...100).contains(limit) else {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "limit must be 1 to 100"))
                return
            }
            if let before = p.before, before.isEmpty || before.utf8.count > 64 || before.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                fail(id, ProtocolError(id: id, code: .badRequest, message: "before must be an ended_at from an earlier page"))
                return
            }
            run(id, { () async throws(ServiceError) -> CallHistoryResult in
                do {
                    let entries = try await pool.withConnection { db in
                        try CallRecordRepository.history(db, of: me, before: p.before, limit: limit + 1)
                    }
                    return CallHistoryResult(calls: Array(entries.prefix(limit)), hasMore: entries.count > limit)
                } catch {
                    if p.before != nil, (error as? PostgresError)?.sqlState?.hasPrefix("22") == true {
                        throw ServiceError(.badRequest, "before must be an ended_at from an earlier page")
                    }
                    throw ServiceError.from(error)
                }
            })
        default:
            session.send(.text, ProtocolCodec.encodeError(id: id, code: .unknownOp, message: "unknown op \(envelope.op.prefix(64))"))
        }
    }

    /// The `call.turn` result: `ice_servers` as `RTCPeerConnection`'s `iceServers` wants them (STUN URIs in one
    /// entry without credentials, TURN URIs in one with `username` and `credential`), `ttl`, and the older flat
    /// fields (`uris`, `username`, `password`, `expires_at`).
    static func turnReply(_ settings: CallSettings, _ credentials: TURNCredentials?) -> [UInt8] {
        let isSTUN: (String) -> Bool = { $0.lowercased().hasPrefix("stun:") || $0.lowercased().hasPrefix("stuns:") }
        let stun = settings.turnURIs.filter(isSTUN)
        let turn = settings.turnURIs.filter { !isSTUN($0) }
        var w = JSONWriter()
        w.beginObject()
        if let credentials {
            w.key("expires_at")
            w.int(credentials.expiresAt)
        }
        w.key("ice_servers")
        w.beginArray()
        if credentials == nil, !settings.turnURIs.isEmpty {
            w.beginObject()
            w.key("urls")
            w.beginArray()
            for uri in settings.turnURIs { w.string(uri) }
            w.endArray()
            w.endObject()
        } else if let credentials {
            if !stun.isEmpty {
                w.beginObject()
                w.key("urls")
                w.beginArray()
                for uri in stun { w.string(uri) }
                w.endArray()
                w.endObject()
            }
            if !turn.isEmpty {
                w.beginObject()
                w.key("credential")
                w.string(credentials.password)
                w.key("urls")
                w.beginArray()
                for uri in turn { w.string(uri) }
                w.endArray()
                w.key("username")
                w.string(credentials.username)
                w.endObject()
            }
        }
        w.endArray()
        if let credentials {
            w.key("password")
            w.string(credentials.password)
        }
        w.key("ttl")
        w.int(credentials?.ttl ?? settings.turnTTL)
        w.key("uris")
        w.beginArray()
        for uri in settings.turnURIs { w.string(uri) }
        w.endArray()
        if let credentials {
            w.key("username")
            w.string(credentials.username)
        }
        w.endObject()
        return w.bytes
    }

    /// What is wrong with an `ice_candidate` payload, or nil: it must be the JSON text of an `RTCIceCandidateInit`
    /// object with a string `candidate` (empty: end of candidates), `sdpMid` a string or null, `sdpMLineIndex` an
    /// integer 0-65535 or null, `usernameFragment` a string or null.
    static func candidateProblem(_ payload: String) -> String? {
        guard let value = try? JSONDecoder().decode(CandidateInit.self, from: Data(payload.utf8)) else {
            return "an ice_candidate payload is the JSON text of an RTCIceCandidateInit: {\"candidate\": string, \"sdpMid\"?, \"sdpMLineIndex\"?, \"usernameFragment\"?}"
        }
        if let index = value.sdpMLineIndex, !(0...65535).contains(index) { return "sdpMLineIndex must be 0 to 65535" }
        return nil
    }

    /// Whether `callId` is a valid call id (`CallID.isValid`); answers `bad_request` to `id` if not.
    func validCallID(_ callId: String, _ id: RequestID) -> Bool {
        guard CallID.isValid(callId) else {
            fail(id, ProtocolError(id: id, code: .badRequest, message: "call_id must be 1 to 64 printable ASCII characters without spaces"))
            return false
        }
        return true
    }

    /// This connection authenticated (on its loop).
    func callConnectionOpened(_ identity: Identity) {
        if let device { services.calls.connectionOpened(device) }
    }

    /// This authenticated connection closed (on its loop; already removed from the session registry).
    func callConnectionClosed(_ identity: Identity) {
        if let device { services.calls.connectionClosed(device) }
    }
}
