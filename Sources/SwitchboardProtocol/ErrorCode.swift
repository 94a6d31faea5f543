//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Every error code a reply can carry (documented in docs/protocol.md).
public enum ErrorCode: String, Sendable, Codable, CaseIterable {
    /// Malformed JSON, a missing or mistyped field (the message names it), or an invalid value.
    case badRequest = "bad_request"
    /// No such op.
    case unknownOp = "unknown_op"
    /// The op needs an authenticated connection.
    case notAuthenticated = "not_authenticated"
    /// `register`, `login` or `authenticate` on a connection that is already authenticated.
    case alreadyAuthenticated = "already_authenticated"
    /// Not a valid phone number.
    case invalidPhone = "invalid_phone"
    /// The password is refused; `reason` says why.
    case weakPassword = "weak_password"
    /// The phone number is already registered.
    case phoneTaken = "phone_taken"
    /// Wrong phone number or password (one answer for both).
    case invalidCredentials = "invalid_credentials"
    /// Unknown, malformed or revoked session token.
    case invalidToken = "invalid_token"
    /// Too many attempts; `retry_after_ms` says when to retry.
    case rateLimited = "rate_limited"
    /// No such object visible to the caller.
    case notFound = "not_found"
    /// The caller may not do this.
    case forbidden = "forbidden"
    /// The op needs a friendship.
    case notFriends = "not_friends"
    /// A pending friend request to this user exists already.
    case alreadyRequested = "already_requested"
    /// A friend request to oneself.
    case selfRequest = "self_request"
    /// A list longer than allowed.
    case tooMany = "too_many"
    /// The request is larger than allowed.
    case payloadTooLarge = "payload_too_large"
    /// The caller is not a member of the conversation (or it does not exist).
    case notMember = "not_member"
    /// A text message longer than the limit, or containing control characters; the message says which.
    case invalidText = "invalid_text"
    /// The call is not in a state that allows this (already answered, not yet answered, or ended).
    case invalidState = "invalid_state"
    /// A user may not call itself.
    case selfCall = "self_call"
    /// The caller already has a call in progress.
    case alreadyInCall = "already_in_call"
    /// A client-supplied call id is already in use.
    case duplicateCallId = "duplicate_call_id"
    /// The caller sent more ICE candidates while ringing than the server buffers.
    case candidateBufferFull = "candidate_buffer_full"
    /// A server fault (no details are given).
    case `internal` = "internal"
    /// The database or the password hasher is temporarily unavailable; retry.
    case unavailable = "unavailable"
    /// The account is suspended by an administrator (`login`, `authenticate`).
    case accountSuspended = "account_suspended"
    /// `communities.join` by a member of that community.
    case alreadyMember = "already_member"
    /// The event has as many participants as its capacity (`events.join`).
    case eventFull = "event_full"
    /// The event has already ended (`events.join`, `events.drop`).
    case eventEnded = "event_ended"
    /// The user already joined the event.
    case alreadyJoined = "already_joined"
    /// The user has not joined the event (`events.drop`).
    case notJoined = "not_joined"
    /// Posting, following, liking or reposting without a handle of one's own ("choose a handle first").
    case handleRequired = "handle_required"
    /// `register` or `handle.set` with a handle another user has (compared case-insensitively).
    case handleTaken = "handle_taken"
    /// `register` or `password.reset` without a valid code for the number: wrong, expired, used up, or never sent
    /// (one answer for all; phone verification).
    case invalidCode = "invalid_code"
}
