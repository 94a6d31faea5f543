//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why a call request was refused. A refused request changes nothing.
public enum CallError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No such call, or the requesting user is not a party of it (existence is not leaked).
    case notFound
    /// The user is a party, but this role or device may not do this (accept by the caller, cancel by
    /// the callee, a callee device that did not accept, another device of the caller).
    case forbidden
    /// The call is not in a state that allows this (already answered, not yet answered, ended, or
    /// past its ring or grace deadline).
    case invalidState
    /// A user may not call itself.
    case selfCall
    /// The user already has an active call, or (for an invite) an outgoing call still ringing.
    case alreadyInCall
    /// A caller-supplied call id is already in use.
    case duplicateCallID
    /// A payload (SDP or candidate) exceeds its limit in UTF-8 bytes.
    case tooLarge(limit: Int)
    /// The device sends signals too fast; it may retry after this many nanoseconds.
    case rateLimited(retryAfterNanoseconds: UInt64)
    /// The caller sent more ICE candidates while ringing than the buffer holds.
    case candidateBufferFull
    /// A `media` signal whose payload is neither `voice` nor `video`.
    case invalidPayload

    /// The wire code (snake_case).
    public var code: String {
        switch self {
        case .notFound: "not_found"
        case .forbidden: "forbidden"
        case .invalidState: "invalid_state"
        case .selfCall: "self_call"
        case .alreadyInCall: "already_in_call"
        case .duplicateCallID: "duplicate_call_id"
        case .tooLarge: "too_large"
        case .rateLimited: "rate_limited"
        case .candidateBufferFull: "candidate_buffer_full"
        case .invalidPayload: "invalid_payload"
        }
    }

    public var description: String {
        switch self {
        case .tooLarge(let limit): "CallError.too_large(limit: \(limit))"
        case .rateLimited(let ns): "CallError.rate_limited(retry_after_ns: \(ns))"
        default: "CallError.\(self.code)"
        }
    }
}
