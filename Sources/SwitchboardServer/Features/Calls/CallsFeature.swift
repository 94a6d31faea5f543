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
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

/// Call signalling: `call.*`. The state machine (`CallRegistry`) runs on the call queue (`CallService`);
/// a step is done once handed to it. Results are written by hand (`JSONWriter`) as the call events are.
struct CallsFeature: Feature {
    static let migrations: [Migration] = [.v0003Calls]

    init(context: ProtocolServices) {}

    func register(in registry: inout FeatureRegistry) {
        registry.add(CallsAccountData.deletionSteps)
        registry.operations.register(Ops.CallInvite.self, Self.invite)
        registry.operations.register(Ops.CallAccept.self) { context, p in
            guard let device = context.device, Self.validCallID(p.callId, context) else { return }
            context.services.calls.perform(
                origin: device, id: context.id, op: context.op,
                command: .accept(callId: p.callId, device: context.user.sessionId, user: context.me, answer: p.answer))
        }
        registry.operations.register(Ops.CallDecline.self) { context, p in
            Self.end(context, p) { .decline(callId: $0, device: $1, user: $2) }
        }
        registry.operations.register(Ops.CallCancel.self) { context, p in
            Self.end(context, p) { .cancel(callId: $0, device: $1, user: $2) }
        }
        registry.operations.register(Ops.CallHangup.self) { context, p in
            Self.end(context, p) { .hangup(callId: $0, device: $1, user: $2) }
        }
        registry.operations.register(Ops.CallSignal.self) { context, p in
            guard let device = context.device, Self.validCallID(p.callId, context) else { return }
            let calls = context.services.calls
            guard let kind = CallSignalKind(rawValue: p.kind) else {
                context.fail(.badRequest, "kind must be one of \(CallSignalKind.allCases.map(\.rawValue).joined(separator: ", "))")
                return
            }
            // An oversized payload is left to the registry (payload_too_large).
            if kind == .iceCandidate, p.payload.utf8.count <= calls.settings.maxICECandidateBytes,
                let problem = Self.candidateProblem(p.payload)
            {
                context.fail(.badRequest, problem)
                return
            }
            calls.perform(
                origin: device, id: context.id, op: context.op,
                command: .signal(callId: p.callId, device: context.user.sessionId, user: context.me, kind: kind.rawValue, payload: p.payload))
        }
        registry.operations.register(Ops.CallTurn.self) { context, p in
            guard let device = context.device else { return }
            if let callId = p.callId, !Self.validCallID(callId, context) { return }
            let calls = context.services.calls
            if let retryAfter = calls.turnLimiter.attempt(context.me, now: EventLoop.now(), sharedBy: context.limitShare).retryAfterMilliseconds {
                context.fail(.rateLimited, "too many TURN credential requests", extra: ["retry_after_ms": retryAfter])
                return
            }
            calls.perform(origin: device, id: context.id, op: context.op, command: .turn(callId: p.callId, user: context.me))
        }
        registry.operations.register(Ops.CallHistory.self, Self.history)
    }

    /// `call.invite`: friendship and the caller's name (from the presence hub's cache, else the database),
    /// then the state machine.
    static func invite(_ context: RequestContext<Ops.CallInvite>, _ p: Ops.CallInvite.Parameters) {
        guard let device = context.device else { return }
        guard let media = CallMedia(rawValue: p.media ?? "voice") else {
            context.fail(.badRequest, "media must be voice or video")
            return
        }
        if let callId = p.callId, !validCallID(callId, context) { return }
        let me = context.me
        let callee = p.calleeId
        guard callee != me else {
            context.fail(.selfCall, "you cannot call yourself")
            return
        }
        let presence = context.services.presence
        let pool = context.services.accounts.pool
        let calls = context.services.calls
        let registry = context.services.registry
        let sessionId = context.user.sessionId
        let id = context.id
        context.run({ () async throws(ServiceError) -> String in
            // The caller is online, so its friend list is usually in the presence hub and its name in the
            // call service: then the database is not on the invite's path.
            // A "not friends" from the memory is checked in the database: in a cluster the friendship may have
            // been made on another node a moment ago (its notice still on the way).
            if let known = await presence.caller(me, friendOf: callee), known.friends {
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
            let online = registry.sessions(ofUser: callee).sorted()
            calls.perform(
                origin: device, id: id, op: Ops.CallInvite.name,
                command: .invite(
                    alias: p.callId, caller: me, callerDevice: sessionId, callerName: name, callee: callee, media: media.rawValue,
                    calleeOnlineDevices: online, offer: p.offer))
        })
    }

    /// `call.decline`, `call.cancel`, `call.hangup`: a transition of the state machine, answered `{}`.
    static func end<Op: ProtocolOperation>(
        _ context: RequestContext<Op>, _ p: CallIDParameters, _ command: (String, Int64, Int64) -> CallCommand
    ) {
        guard let device = context.device, validCallID(p.callId, context) else { return }
        context.services.calls.perform(
            origin: device, id: context.id, op: context.op, command: command(p.callId, context.user.sessionId, context.me))
    }

    /// `call.history`: ended calls, latest first.
    static func history(_ context: RequestContext<Ops.CallHistory>, _ p: Ops.CallHistory.Parameters) {
        // Checked before any arithmetic (limit + 1) and before the database sees `before`.
        let limit = p.limit ?? 20
        guard (1...100).contains(limit) else {
            context.fail(.badRequest, "limit must be 1 to 100")
            return
        }
        if let before = p.before, before.isEmpty || before.utf8.count > 64 || before.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            context.fail(.badRequest, "before must be an ended_at from an earlier page")
            return
        }
        let pool = context.services.accounts.pool
        let me = context.me
        context.run { () async throws(ServiceError) -> Ops.CallHistory.Result in
            do {
                let entries = try await pool.withConnection { db in
                    try CallRecordRepository.history(db, of: me, before: p.before, limit: limit + 1)
                }
                return Ops.CallHistory.Result(calls: Array(entries.prefix(limit)), hasMore: entries.count > limit)
            } catch {
                if p.before != nil, (error as? PostgresError)?.sqlState?.hasPrefix("22") == true {
                    throw ServiceError(.badRequest, "before must be an ended_at from an earlier page")
                }
                throw ServiceError.from(error)
            }
        }
    }

    /// Whether `callId` is a valid call id (`CallID.isValid`); answers `bad_request` if not.
    static func validCallID<Op: ProtocolOperation>(_ callId: String, _ context: RequestContext<Op>) -> Bool {
        guard CallID.isValid(callId) else {
            context.fail(.badRequest, "call_id must be 1 to 64 printable ASCII characters without spaces")
            return false
        }
        return true
    }

    /// A browser's `RTCIceCandidateInit`: the payload of an `ice_candidate` signal (`docs/protocol.md`, Calls).
    struct CandidateInit: Decodable {
        var candidate: String
        var sdpMid: String?
        var sdpMLineIndex: Int64?
        var usernameFragment: String?
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
}
