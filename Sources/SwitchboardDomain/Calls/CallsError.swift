//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardProtocol

/// Why a call request was refused (`call.*`, docs/protocol.md "Calls"); mapped to the wire in `wire`, with the
/// messages the wire has always had. The feature's checks before the call queue and the call state machine's own
/// refusals (`SwitchboardCalls.CallError`, mapped to the cases from `callNotFound` on by the server) are both
/// answered through it. (Named after the feature: the state machine's error is `CallError`.)
public enum CallsError: FeatureError, Equatable {
    /// A `call_id` that is not 1 to 64 printable ASCII characters without spaces.
    case invalidCallId
    /// `call.invite`'s `media` is neither `voice` nor `video`.
    case invalidMedia
    /// `call.invite` to the caller itself.
    case selfCall
    /// `call.invite` to someone who is not the caller's friend.
    case notFriends
    /// `call.signal`'s `kind` is not one of the signal kinds (listed in the message).
    case invalidSignalKind(allowed: [String])
    /// An `ice_candidate` payload that is not an `RTCIceCandidateInit` (the problem as the message).
    case invalidCandidate(String)
    /// The caller's `call.turn` bucket is empty.
    case turnRateLimited(retryAfterMilliseconds: Int64)
    /// `call.history`'s `limit` outside 1...100.
    case historyLimit
    /// `call.history`'s `before` is not an `ended_at` of an earlier page.
    case badHistoryCursor
    /// No such call, or the caller is not a party of it (the state machine; existence is not leaked).
    case callNotFound
    /// A party, but this role or device may not do that (the state machine).
    case forbidden
    /// The call is not in a state that allows this (the state machine).
    case invalidState
    /// The caller already has a call in progress (the state machine).
    case alreadyInCall
    /// A client-chosen call id already in use (the state machine).
    case duplicateCallId
    /// A payload (SDP or candidate) over `limit` UTF-8 bytes (the state machine).
    case payloadTooLarge(limit: Int)
    /// The device sends signals too fast (the state machine): retry after this many milliseconds.
    case signalsRateLimited(retryAfterMilliseconds: Int64)
    /// Too many ICE candidates while the call still rings (the state machine).
    case candidateBufferFull
    /// A `media` signal whose payload is neither `voice` nor `video` (the state machine).
    case invalidMediaSignal
    /// The database failed.
    case database(DatabaseError)

    public var wire: ServiceError {
        switch self {
        case .invalidCallId:
            return ServiceError(.badRequest, "call_id must be 1 to 64 printable ASCII characters without spaces")
        case .invalidMedia: return ServiceError(.badRequest, "media must be voice or video")
        case .selfCall: return ServiceError(.selfCall, "you cannot call yourself")
        case .notFriends: return ServiceError(.notFriends, "you can only call friends")
        case .invalidSignalKind(let allowed):
            return ServiceError(.badRequest, "kind must be one of \(allowed.joined(separator: ", "))")
        case .invalidCandidate(let problem): return ServiceError(.badRequest, problem)
        case .turnRateLimited(let retryAfter):
            return ServiceError(
                .rateLimited, "too many TURN credential requests", extra: ["retry_after_ms": retryAfter])
        case .historyLimit: return ServiceError(.badRequest, "limit must be 1 to 100")
        case .badHistoryCursor: return ServiceError(.badRequest, "before must be an ended_at from an earlier page")
        case .callNotFound: return ServiceError(.notFound, "no such call of yours")
        case .forbidden: return ServiceError(.forbidden, "this device or party may not do that")
        case .invalidState: return ServiceError(.invalidState, "the call is not in a state that allows this")
        case .alreadyInCall: return ServiceError(.alreadyInCall, "you already have a call in progress")
        case .duplicateCallId: return ServiceError(.duplicateCallId, "this call id is in use")
        case .payloadTooLarge(let limit):
            return ServiceError(.payloadTooLarge, "the payload is larger than \(limit) bytes")
        case .signalsRateLimited(let retryAfter):
            return ServiceError(.rateLimited, "too many signals", extra: ["retry_after_ms": retryAfter])
        case .candidateBufferFull:
            return ServiceError(.candidateBufferFull, "too many ICE candidates before the answer")
        case .invalidMediaSignal: return ServiceError(.badRequest, "a media signal's payload is voice or video")
        case .database(let failure): return failure.wire
        }
    }

    /// Equal when their wire answers are (the database failure's cause is not compared).
    public static func == (lhs: CallsError, rhs: CallsError) -> Bool { lhs.wire == rhs.wire }
}
