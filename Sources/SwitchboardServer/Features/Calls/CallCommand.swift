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

/// One input of the call state machine as a value: what a `call.*` handler asks of the `CallRegistry` once its
/// validation and database checks passed on the origin node. Applied by `CallService` on the node that
/// coordinates calls (this one without a cluster), so it can travel over the bus (`ClusterWire.callRequest`,
/// as JSON) to the coordinator (`docs/cluster.md`, "Calls across nodes").
///
/// Devices are session ids, users user ids, calls call ids (as the client named them), media and signal kinds
/// their wire names.
enum CallCommand: Codable, Sendable, Equatable {
    /// `call.invite`: the caller's display name (for `call.ring`) and the callee's online devices resolved on
    /// the origin node.
    case invite(
        alias: String?, caller: Int64, callerDevice: Int64, callerName: String, callee: Int64, media: String,
        calleeOnlineDevices: [Int64],
        offer: String?)
    case accept(callId: String, device: Int64, user: Int64, answer: String?)
    case decline(callId: String, device: Int64, user: Int64)
    case cancel(callId: String, device: Int64, user: Int64)
    case hangup(callId: String, device: Int64, user: Int64)
    case signal(callId: String, device: Int64, user: Int64, kind: String, payload: String)
    /// `call.turn`: credentials, for a call of the user in progress or without a call.
    case turn(callId: String?, user: Int64)

    static let empty: [UInt8] = Array("{}".utf8)

    /// Applies the command to `registry`: the `ok` JSON and the effects, or the error.
    func apply(to registry: inout CallRegistry, now: UInt64, settings: CallSettings) throws(CallError) -> (
        [UInt8], [CallEffect]
    ) {
        switch self {
        case .invite(let alias, let caller, let callerDevice, _, let callee, let mediaName, let online, let offer):
            // The handler checked the media name; a malformed command from another node is refused here too.
            guard let media = CallMedia(rawValue: mediaName) else { throw .invalidPayload }
            let outcome = try registry.invite(
                alias: alias.map(CallID.init), caller: UserID(caller), callerDevice: DeviceID(callerDevice),
                callee: UserID(callee),
                media: media, calleeOnlineDevices: Set(online.map(DeviceID.init)), offer: offer, now: now)
            var w = JSONWriter()
            w.beginObject()
            w.key("call")
            // The offer only on glare: the joining device answers the other side's offer.
            CallService.write(
                registry.call(outcome.call.id) ?? outcome.call, &w, offer: outcome.disposition == .joinedExisting,
                now: now)
            w.key("disposition")
            switch outcome.disposition {
            case .ringing: w.string("ringing")
            case .unavailable: w.string("unavailable")
            case .busy: w.string("busy")
            case .joinedExisting: w.string("joined")
            }
            w.endObject()
            return (w.bytes, outcome.effects)
        case .accept(let callId, let device, let user, let answer):
            let effects = try registry.accept(
                CallID(callId), device: DeviceID(device), user: UserID(user), answer: answer, now: now)
            var w = JSONWriter()
            w.beginObject()
            w.key("call")
            if let call = registry.call(CallID(callId), for: UserID(user)) {
                CallService.write(call, &w, now: now)
            } else {
                w.raw("null")
            }
            w.endObject()
            return (w.bytes, effects)
        case .decline(let callId, let device, let user):
            return (
                Self.empty, try registry.decline(CallID(callId), device: DeviceID(device), user: UserID(user), now: now)
            )
        case .cancel(let callId, let device, let user):
            return (
                Self.empty, try registry.cancel(CallID(callId), device: DeviceID(device), user: UserID(user), now: now)
            )
        case .hangup(let callId, let device, let user):
            return (
                Self.empty, try registry.hangup(CallID(callId), device: DeviceID(device), user: UserID(user), now: now)
            )
        case .signal(let callId, let device, let user, let kindName, let payload):
            guard let kind = CallSignalKind(rawValue: kindName) else { throw .invalidPayload }
            let effects = try registry.signal(
                CallID(callId), fromDevice: DeviceID(device), user: UserID(user), kind: kind, payload: payload, now: now
            )
            return (Self.empty, effects)
        case .turn(let callId, let user):
            // Without a call (before the invite, as browsers need it for their offer) or for a call of yours in
            // progress.
            if let callId {
                guard let call = registry.call(CallID(callId), for: UserID(user)), !call.isEnded else {
                    throw .notFound
                }
            }
            let credentials = settings.turnSecret.map {
                TURNCredentials.make(
                    sharedSecret: $0, userID: UserID(user), ttl: settings.turnTTL,
                    now: Int64(Date().timeIntervalSince1970),
                    uris: settings.turnURIs)
            }
            return (CallsFeature.turnReply(settings, credentials), [])
        }
    }

    /// The JSON that crosses the bus.
    func encoded() -> [UInt8] { (try? Array(JSONEncoder().encode(self))) ?? [] }

    /// A command from the bus; nil when malformed.
    static func decode(_ bytes: [UInt8]) -> CallCommand? {
        try? JSONDecoder().decode(CallCommand.self, from: Data(bytes))
    }
}
