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

/// Call signalling: `call.*` (docs/protocol.md, "Calls"). The rules before the call queue, the caller's name and
/// `call.history` are `CallsService`'s; the state machine (`CallRegistry`) runs on the call queue (`CallService`),
/// and a step is done once handed to it. Results are written by hand (`JSONWriter`) as the call events are.
struct CallsFeature: Feature {
    static let migrations: [Migration] = [.v0003Calls]

    let service: CallsService

    init(context: ProtocolServices) {
        let presence = context.presence
        service = CallsService(
            db: context.pool, settings: context.calls.settings,
            knownCaller: { caller, callee in await presence.caller(caller, friendOf: callee) })
    }

    func register(in registry: inout FeatureRegistry) {
        registry.add(CallsAccountData.deletionSteps)
        let settings = service.settings
        registry.configuration.append(
            ConfigurationGroup(
                feature: "calls",
                values: [
                    ("ring-timeout", "\(settings.ringTimeout)"), ("call-reconnect-grace", "\(settings.reconnectGrace)"),
                    ("max-sdp-bytes", "\(settings.maxSDPBytes)"), ("signal-rate", "\(settings.signalsPerSecond)"),
                    ("turn-ttl", "\(settings.turnTTL)"), ("turn-rate", "\(settings.turnRequestsPerMinute)"),
                ]))
        let service = self.service
        registry.operations.register(Ops.CallInvite.self) { context, p in Self.invite(context, p, service) }
        registry.operations.register(Ops.CallAccept.self) { context, p in
            guard let device = context.device,
                Self.check(
                    context,
                    { () throws(CallsError) in
                        try service.checkCallId(p.callId)
                    })
            else { return }
            context.services.calls.perform(
                origin: device, id: context.id, op: context.op,
                command: .accept(callId: p.callId, device: context.user.sessionId, user: context.me, answer: p.answer))
        }
        registry.operations.register(Ops.CallDecline.self) { context, p in
            Self.end(context, p, service) { .decline(callId: $0, device: $1, user: $2) }
        }
        registry.operations.register(Ops.CallCancel.self) { context, p in
            Self.end(context, p, service) { .cancel(callId: $0, device: $1, user: $2) }
        }
        registry.operations.register(Ops.CallHangup.self) { context, p in
            Self.end(context, p, service) { .hangup(callId: $0, device: $1, user: $2) }
        }
        registry.operations.register(Ops.CallSignal.self) { context, p in
            guard let device = context.device else { return }
            var kind = CallSignalKind.iceCandidate
            guard
                Self.check(
                    context,
                    { () throws(CallsError) in
                        kind = try service.checkSignal(callId: p.callId, kind: p.kind, payload: p.payload)
                    })
            else { return }
            context.services.calls.perform(
                origin: device, id: context.id, op: context.op,
                command: .signal(
                    callId: p.callId, device: context.user.sessionId, user: context.me, kind: kind.rawValue,
                    payload: p.payload))
        }
        registry.operations.register(Ops.CallTurn.self) { context, p in
            guard let device = context.device else { return }
            let (me, share) = (context.me, context.limitShare)
            guard
                Self.check(
                    context,
                    { () throws(CallsError) in
                        try service.admitTurn(userId: me, limitShare: share, callId: p.callId)
                    })
            else { return }
            context.services.calls.perform(
                origin: device, id: context.id, op: context.op, command: .turn(callId: p.callId, user: me))
        }
        registry.operations.register(Ops.CallHistory.self) { s, p async throws(CallsError) in
            try await service.history(userId: s.userId, before: p.before, limit: p.limit)
        }
    }

    /// Runs a check of the service on the loop; false (after answering with its error) when it refuses.
    static func check<Op: ProtocolOperation>(
        _ context: RequestContext<Op>, _ body: () throws(CallsError) -> Void
    ) -> Bool {
        do throws(CallsError) {
            try body()
            return true
        } catch {
            context.fail(error.wire)
            return false
        }
    }

    /// `call.invite`: the service's checks, the friendship and the caller's name (from the presence engine's memory,
    /// else the database), then the state machine.
    static func invite(
        _ context: RequestContext<Ops.CallInvite>, _ p: Ops.CallInvite.Parameters, _ service: CallsService
    ) {
        guard let device = context.device else { return }
        let me = context.me
        let callee = p.calleeId
        var media = CallMedia.voice
        guard
            Self.check(
                context,
                { () throws(CallsError) in
                    media = try service.checkInvite(caller: me, callee: callee, media: p.media, callId: p.callId)
                })
        else { return }
        let calls = context.services.calls
        let registry = context.services.registry
        let sessionId = context.user.sessionId
        let id = context.id
        context.run(
            { () async throws(ServiceError) -> String in
                do throws(CallsError) { return try await service.callerName(caller: me, callee: callee) } catch {
                    throw error.wire
                }
            },
            replyWith: { [media] _, name in
                calls.setName(name, of: me)
                let online = registry.sessions(ofUser: callee).sorted()
                calls.perform(
                    origin: device, id: id, op: Ops.CallInvite.name,
                    command: .invite(
                        alias: p.callId, caller: me, callerDevice: sessionId, callerName: name, callee: callee,
                        media: media.rawValue, calleeOnlineDevices: online, offer: p.offer))
            })
    }

    /// `call.decline`, `call.cancel`, `call.hangup`: a transition of the state machine, answered `{}`.
    static func end<Op: ProtocolOperation>(
        _ context: RequestContext<Op>, _ p: CallIDParameters, _ service: CallsService,
        _ command: (String, Int64, Int64) -> CallCommand
    ) {
        guard let device = context.device,
            check(context, { () throws(CallsError) in try service.checkCallId(p.callId) })
        else { return }
        context.services.calls.perform(
            origin: device, id: context.id, op: context.op,
            command: command(p.callId, context.user.sessionId, context.me))
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
}
