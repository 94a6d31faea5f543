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

/// Calls' rules before the call queue and its reads (docs/protocol.md, "Calls"): call ids, media and signal kinds,
/// ICE candidate payloads, the friendship and the caller's name for an invite, the `call.turn` bucket, and
/// `call.history`. The call state machine and its queue stay the engine's (`CallService`, `CallRegistry`): the
/// handlers hand it a `CallCommand` once these checks passed, and its refusals are mapped to `CallsError` too
/// (`refusal(_:)`), so the feature has one typed error. Nothing here touches a socket, a loop or the outbox.
final class CallsService: Sendable {
    /// What the presence engine knows of a caller: whether the callee is a friend and the caller's display name
    /// (nil when it does not know: ask the database).
    typealias KnownCaller = @Sendable (_ caller: Int64, _ callee: Int64) async -> (friends: Bool, name: String)?

    let db: any Database
    let settings: CallSettings
    /// `call.turn` requests per user.
    let turnLimiter: SharedRateLimiter<Int64>
    /// The presence engine's memory of online callers (`PresenceHub.caller(_:friendOf:)` in the server).
    let knownCaller: KnownCaller
    /// Monotonic nanoseconds for the rate limiter (`EventLoop.now()` in the server, a manual clock in tests).
    let clock: any EngineClock

    init(
        db: any Database, settings: CallSettings, knownCaller: @escaping KnownCaller,
        clock: any EngineClock = SystemClock()
    ) {
        self.db = db
        self.settings = settings
        self.knownCaller = knownCaller
        self.clock = clock
        turnLimiter = SharedRateLimiter(
            capacity: max(1, settings.turnRequestsPerMinute), refillPerSecond: settings.turnRequestsPerMinute / 60)
    }

    // MARK: checks before the call queue (synchronous: on the loop)

    /// A `call_id` (`CallID.isValid`).
    func checkCallId(_ callId: String) throws(CallsError) {
        guard CallID.isValid(callId) else { throw .invalidCallId }
    }

    /// `call.invite`'s checks: the media (default `voice`), the optional call id, not to oneself.
    func checkInvite(caller: Int64, callee: Int64, media: String?, callId: String?) throws(CallsError) -> CallMedia {
        guard let media = CallMedia(rawValue: media ?? "voice") else { throw .invalidMedia }
        if let callId { try checkCallId(callId) }
        guard callee != caller else { throw .selfCall }
        return media
    }

    /// `call.signal`'s checks: the call id, the kind, and an `ice_candidate` payload's shape (an oversized payload
    /// is left to the state machine, which answers `payload_too_large`).
    func checkSignal(callId: String, kind: String, payload: String) throws(CallsError) -> CallSignalKind {
        try checkCallId(callId)
        guard let kind = CallSignalKind(rawValue: kind) else {
            throw .invalidSignalKind(allowed: CallSignalKind.allCases.map(\.rawValue))
        }
        if kind == .iceCandidate, payload.utf8.count <= settings.maxICECandidateBytes,
            let problem = Self.candidateProblem(payload)
        {
            throw .invalidCandidate(problem)
        }
        return kind
    }

    /// `call.turn`'s checks: the optional call id, then one token of the caller's bucket.
    func admitTurn(userId: Int64, limitShare: Int, callId: String?) throws(CallsError) {
        if let callId { try checkCallId(callId) }
        let attempt = turnLimiter.attempt(userId, now: clock.now(), sharedBy: limitShare)
        if let retryAfter = attempt.retryAfterMilliseconds {
            throw .turnRateLimited(retryAfterMilliseconds: retryAfter)
        }
    }

    // MARK: use cases

    /// The caller's display name for `call.ring`, once the callee is known to be its friend. The caller is online,
    /// so its friend list is usually in the presence engine's memory: then the database is not on the invite's
    /// path. A "not friends" from the memory is checked in the database: in a cluster the friendship may have been
    /// made on another node a moment ago (its notice still on the way).
    func callerName(caller: Int64, callee: Int64) async throws(CallsError) -> String {
        if let known = await knownCaller(caller, callee), known.friends { return known.name }
        return try await db.read(as: CallsError.self) { db in
            guard try FriendRepository.areFriends(db, caller, callee) else { throw CallsError.notFriends }
            return try UserRepository.displayName(db, of: caller) ?? ""
        }
    }

    /// `call.history`: the caller's ended calls, latest first, `limit` (1-100, default 20) per page; `before` is the
    /// `ended_at` of an earlier page's last entry.
    func history(userId: Int64, before: String?, limit: Int?) async throws(CallsError) -> Ops.CallHistory.Result {
        // Checked before any arithmetic (limit + 1) and before the database sees `before`.
        let limit = limit ?? 20
        guard (1...100).contains(limit) else { throw .historyLimit }
        if let before,
            before.isEmpty || before.utf8.count > 64 || before.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        {
            throw .badHistoryCursor
        }
        let entries = try await db.read(as: CallsError.self) { db in
            try CallRecordRepository.history(db, of: userId, before: before, limit: limit + 1)
        }
        return Ops.CallHistory.Result(calls: Array(entries.prefix(limit)), hasMore: entries.count > limit)
    }

    // MARK: the state machine's refusals

    /// A refusal of the call state machine as the feature's error.
    static func refusal(_ error: CallError) -> CallsError {
        switch error {
        case .notFound: .callNotFound
        case .forbidden: .forbidden
        case .invalidState: .invalidState
        case .selfCall: .selfCall
        case .alreadyInCall: .alreadyInCall
        case .duplicateCallID: .duplicateCallId
        case .tooLarge(let limit): .payloadTooLarge(limit: limit)
        case .rateLimited(let ns):
            // Rounded up without overflow (a bucket that never refills reports UInt64.max).
            .signalsRateLimited(retryAfterMilliseconds: Int64(clamping: ns / 1_000_000 + (ns % 1_000_000 == 0 ? 0 : 1)))
        case .candidateBufferFull: .candidateBufferFull
        case .invalidPayload: .invalidMediaSignal
        }
    }

    // MARK: ICE candidates

    /// A browser's `RTCIceCandidateInit`: the payload of an `ice_candidate` signal (`docs/protocol.md`, Calls).
    struct CandidateInit: Decodable {
        var candidate: String
        var sdpMid: String?
        var sdpMLineIndex: Int64?
        var usernameFragment: String?
    }

    /// What is wrong with an `ice_candidate` payload, or nil: it must be the JSON text of an `RTCIceCandidateInit`
    /// object with a string `candidate` (empty: end of candidates), `sdpMid` a string or null, `sdpMLineIndex` an
    /// integer 0-65535 or null, `usernameFragment` a string or null.
    static func candidateProblem(_ payload: String) -> String? {
        guard let value = try? JSONDecoder().decode(CandidateInit.self, from: Data(payload.utf8)) else {
            return "an ice_candidate payload is the JSON text of an RTCIceCandidateInit: "
                + "{\"candidate\": string, \"sdpMid\"?, \"sdpMLineIndex\"?, \"usernameFragment\"?}"
        }
        if let index = value.sdpMLineIndex, !(0...65535).contains(index) { return "sdpMLineIndex must be 0 to 65535" }
        return nil
    }
}
