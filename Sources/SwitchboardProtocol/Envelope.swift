//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

/// The subprotocol that carries protocol v1.
public let switchboardSubprotocol = "switchboard.v1"

/// A request id: clients choose a string or an integer; replies echo it unchanged.
public enum RequestID: Hashable, Sendable, Codable, CustomStringConvertible {
    /// An integer id.
    case int(Int64)
    /// A string id of at most 64 UTF-8 bytes.
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let i = try? container.decode(Int64.self) {
            self = .int(i)
        } else if let s = try? container.decode(String.self), s.utf8.count <= 64 {
            self = .string(s)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "id must be an integer or a string of at most 64 bytes")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .int(let i): try container.encode(i)
        case .string(let s): try container.encode(s)
        }
    }

    public var description: String {
        switch self {
        case .int(let i): return String(i)
        case .string(let s): return s
        }
    }
}

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
}

/// The WebSocket close codes the server sends (docs/protocol.md).
public enum ProtocolCloseCode: UInt16, Sendable, CaseIterable {
    /// Normal closure: the reply to the client's close, or after `logout`.
    case normal = 1000
    /// Going away: server shutdown or idle timeout.
    case goingAway = 1001
    /// WebSocket protocol error.
    case protocolError = 1002
    /// Invalid UTF-8 in a text message or close reason, or undecodable compressed data.
    case invalidPayload = 1007
    /// Policy violation: a slow consumer, when the backpressure policy is `close-1008`.
    case policyViolation = 1008
    /// A frame or message larger than the limits.
    case messageTooBig = 1009
    /// Internal server error.
    case internalError = 1011
    /// Try again later: the client did not read fast enough (outbound limit).
    case tryAgainLater = 1013
    /// The connection's session was revoked (after a `session.revoked` event).
    case sessionRevoked = 4001
    /// The connection did not authenticate in time (default 10 s).
    case authenticationTimeout = 4002
    /// Backpressure: the client is a slow consumer (application-level variant of 1013).
    case slowConsumer = 4003
}

/// A request that could not be decoded; `id` is set whenever it could be recovered, so the error reply
/// can reference it.
public struct ProtocolError: Error, Equatable, Sendable {
    /// The request's id, when it could be read.
    public var id: RequestID?
    /// The error code of the reply (`bad_request`, `unknown_op` or `payload_too_large`).
    public var code: ErrorCode
    /// A human-readable message naming the problem (never echoes a password or token).
    public var message: String
    public init(id: RequestID?, code: ErrorCode, message: String) {
        self.id = id
        self.code = code
        self.message = message
    }
}

/// A decoded request envelope: its id, its op and the whole JSON object for the op's own decoder (the op's
/// declared `Parameters`, through `ProtocolCodec.parameterDecoder(_:)`).
public struct RequestEnvelope: Sendable {
    /// The request's id.
    public var id: RequestID
    /// The op name as sent.
    public var op: String
    /// The request's JSON bytes (decode the op's parameters from them).
    public var json: [UInt8]
}

private struct EnvelopeHead: Decodable {
    var id: RequestID?
    var op: String?
    /// `op` is present but not a string (answered with the id, which was readable).
    var opHasWrongType = false

    private enum CodingKeys: String, CodingKey { case id, op }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(RequestID.self, forKey: .id)
        do {
            op = try c.decodeIfPresent(String.self, forKey: .op)
        } catch DecodingError.typeMismatch {
            opHasWrongType = true
        }
    }
}

/// Encodes and decodes protocol v1 frames (JSON text).
public enum ProtocolCodec {
    /// Largest request accepted (bytes of JSON).
    public static let maxRequestBytes = 64 * 1024

    /// Decodes `{id, op, ...}`. Malformed JSON, a missing id or op, or a non-object is `bad_request`.
    public static func decodeEnvelope(_ bytes: [UInt8]) -> Result<RequestEnvelope, ProtocolError> {
        guard bytes.count <= maxRequestBytes else {
            return .failure(
                ProtocolError(id: nil, code: .payloadTooLarge, message: "request larger than \(maxRequestBytes) bytes"))
        }
        // The common shape is read without JSONDecoder (the parameters are the request's only decode); anything
        // else takes the exact path below, which gives the documented errors.
        if let (id, op) = EnvelopeScanner.scan(bytes) {
            return .success(RequestEnvelope(id: id, op: op, json: bytes))
        }
        return decodeEnvelopeExactly(bytes)
    }

    /// `decodeEnvelope` through `JSONDecoder` (every shape, every error); also the reference of the scanner's
    /// differential fuzz target.
    public static func decodeEnvelopeExactly(_ bytes: [UInt8]) -> Result<RequestEnvelope, ProtocolError> {
        guard bytes.count <= maxRequestBytes else {
            return .failure(
                ProtocolError(id: nil, code: .payloadTooLarge, message: "request larger than \(maxRequestBytes) bytes"))
        }
        let head: EnvelopeHead
        do {
            head = try JSONDecoder().decode(EnvelopeHead.self, from: Data(bytes))
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "a request is a JSON object"))
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            return .failure(
                ProtocolError(
                    id: nil, code: .badRequest, message: "id must be an integer or a string of at most 64 bytes"))
        } catch DecodingError.typeMismatch(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "field \(field) has the wrong type"))
        } catch {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "malformed JSON"))
        }
        guard let id = head.id else {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "missing field id"))
        }
        guard !head.opHasWrongType else {
            return .failure(ProtocolError(id: id, code: .badRequest, message: "field op has the wrong type"))
        }
        guard let op = head.op, !op.isEmpty else {
            return .failure(ProtocolError(id: id, code: .badRequest, message: "missing field op"))
        }
        return .success(RequestEnvelope(id: id, op: op, json: bytes))
    }

    /// The decoder of `P` for a router to keep: `ScannableParameters` are read by their scanner when it
    /// answers and by `JSONDecoder` otherwise; other parameters by `JSONDecoder` (`decodeParameters`).
    public static func parameterDecoder<P: Decodable & Sendable>(
        _ type: P.Type
    ) -> @Sendable (RequestEnvelope) -> Result<P, ProtocolError> {
        if let scan = parameterScanner(P.self) {
            return { envelope in
                if let parameters = scan(envelope.json) { return .success(parameters) }
                return decodeParameters(P.self, from: envelope)
            }
        }
        return { envelope in decodeParameters(P.self, from: envelope) }
    }

    /// `P`'s scanner when `P` is `ScannableParameters`, else nil.
    public static func parameterScanner<P: Decodable & Sendable>(_ type: P.Type) -> (@Sendable ([UInt8]) -> P?)? {
        guard let scannable = P.self as? any ScannableParameters.Type else { return nil }
        return scanner(of: scannable, as: P.self)
    }

    /// The scanner of `S` typed as `P`'s (they are the same type; the cast is made once, in the generic context
    /// where both are known, since opening the existential would erase `S` in the result).
    private static func scanner<S: ScannableParameters, P>(of type: S.Type, as: P.Type) -> (@Sendable ([UInt8]) -> P?)?
    {
        let scan: @Sendable ([UInt8]) -> S? = { bytes in S.scanned(from: bytes) }
        return scan as? @Sendable ([UInt8]) -> P?
    }

    /// Decodes an op's parameters from the request; a missing or mistyped field is `bad_request` naming it.
    public static func decodeParameters<P: Decodable>(_ type: P.Type, from envelope: RequestEnvelope) -> Result<
        P, ProtocolError
    > {
        do {
            return .success(try requestDecoder().decode(P.self, from: Data(envelope.json)))
        } catch {
            return .failure(parameterError(error, id: envelope.id))
        }
    }

    /// `{"re": id, "ok": result}`.
    public static func encodeReply<R: Encodable>(id: RequestID, result: R) -> [UInt8] {
        encode(Reply(re: id, ok: result))
    }

    /// `{"re": id, "error": {"code", "message", ...extra}}`; `id` nil when it could not be recovered.
    public static func encodeError(
        id: RequestID?, code: ErrorCode, message: String, extra: [String: Int64] = [:], reason: String? = nil
    ) -> [UInt8] {
        encode(ErrorReply(re: id, error: ErrorBody(code: code, message: message, extra: extra, reason: reason)))
    }

    /// `{"ev": name, ...fields}` from an encodable event body whose keys become the event's fields.
    public static func encodeEvent<E: Encodable>(_ name: String, _ body: E) -> [UInt8] {
        encode(EventEnvelope(ev: name, body: body))
    }

    static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding our own types cannot fail (no non-finite floats are ever encoded).
        return Array((try? encoder.encode(value)) ?? Data("{}".utf8))
    }

    static func snake(_ path: String) -> String {
        var out = ""
        for c in path {
            if c.isUppercase {
                out += "_" + c.lowercased()
            } else {
                out.append(c)
            }
        }
        return out
    }
}

struct Reply<R: Encodable>: Encodable {
    var re: RequestID
    var ok: R
}

struct ErrorBody: Encodable {
    var code: ErrorCode
    var message: String
    var extra: [String: Int64]
    var reason: String? = nil

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(code, forKey: Key(stringValue: "code"))
        try container.encode(message, forKey: Key(stringValue: "message"))
        for (k, v) in extra { try container.encode(v, forKey: Key(stringValue: k)) }
        if let reason { try container.encode(reason, forKey: Key(stringValue: "reason")) }
    }
}

struct ErrorReply: Encodable {
    var re: RequestID?
    var error: ErrorBody

    enum CodingKeys: String, CodingKey { case re, error }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let re { try container.encode(re, forKey: .re) } else { try container.encodeNil(forKey: .re) }
        try container.encode(error, forKey: .error)
    }
}

struct EventEnvelope<E: Encodable>: Encodable {
    var ev: String
    var body: E

    enum CodingKeys: String, CodingKey { case ev }

    func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ev, forKey: .ev)
    }
}

/// An empty result or event body: `{}`.
public struct Empty: Codable, Sendable, Equatable {
    public init() {}
}
