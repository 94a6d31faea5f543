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
    case int(Int64)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let i = try? container.decode(Int64.self) {
            self = .int(i)
        } else if let s = try? container.decode(String.self), s.utf8.count <= 64 {
            self = .string(s)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "id must be an integer or a string of at most 64 bytes")
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
    case badRequest = "bad_request"
    case unknownOp = "unknown_op"
    case notAuthenticated = "not_authenticated"
    case alreadyAuthenticated = "already_authenticated"
    case invalidPhone = "invalid_phone"
    case weakPassword = "weak_password"
    case phoneTaken = "phone_taken"
    case invalidCredentials = "invalid_credentials"
    case invalidToken = "invalid_token"
    case rateLimited = "rate_limited"
    case notFound = "not_found"
    case forbidden = "forbidden"
    case notFriends = "not_friends"
    case alreadyRequested = "already_requested"
    case selfRequest = "self_request"
    case tooMany = "too_many"
    case payloadTooLarge = "payload_too_large"
    case `internal` = "internal"
    case unavailable = "unavailable"
}

/// A request that could not be decoded; `id` is set whenever it could be recovered, so the error reply
/// can reference it.
public struct ProtocolError: Error, Equatable, Sendable {
    public var id: RequestID?
    public var code: ErrorCode
    public var message: String
    public init(id: RequestID?, code: ErrorCode, message: String) {
        self.id = id
        self.code = code
        self.message = message
    }
}

/// A decoded request envelope: its id, its op and the whole JSON object for the op's own decoder.
public struct RequestEnvelope: Sendable {
    public var id: RequestID
    public var op: String
    /// The request's JSON bytes (decode the op's parameters from them).
    public var json: [UInt8]
}

private struct EnvelopeHead: Decodable {
    var id: RequestID?
    var op: String?
}

/// Encodes and decodes protocol v1 frames (JSON text).
public enum ProtocolCodec {
    /// Largest request accepted (bytes of JSON).
    public static let maxRequestBytes = 64 * 1024

    /// Decodes `{id, op, ...}`. Malformed JSON, a missing id or op, or a non-object is `bad_request`.
    public static func decodeEnvelope(_ bytes: [UInt8]) -> Result<RequestEnvelope, ProtocolError> {
        guard bytes.count <= maxRequestBytes else {
            return .failure(ProtocolError(id: nil, code: .payloadTooLarge, message: "request larger than \(maxRequestBytes) bytes"))
        }
        let head: EnvelopeHead
        do {
            head = try JSONDecoder().decode(EnvelopeHead.self, from: Data(bytes))
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "a request is a JSON object"))
        } catch DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "id must be an integer or a string of at most 64 bytes"))
        } catch DecodingError.typeMismatch(_, let context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "field \(field) has the wrong type"))
        } catch {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "malformed JSON"))
        }
        guard let id = head.id else {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "missing field id"))
        }
        guard let op = head.op, !op.isEmpty else {
            return .failure(ProtocolError(id: id, code: .badRequest, message: "missing field op"))
        }
        return .success(RequestEnvelope(id: id, op: op, json: bytes))
    }

    /// Decodes an op's parameters from the request; a missing or mistyped field is `bad_request` naming it.
    public static func decodeParameters<P: Decodable>(_ type: P.Type, from envelope: RequestEnvelope) -> Result<P, ProtocolError> {
        do {
            let decoder = JSONDecoder()
            decoder.keyDecodingStrategy = .convertFromSnakeCase
            return .success(try decoder.decode(P.self, from: Data(envelope.json)))
        } catch DecodingError.keyNotFound(let key, let context) {
            let path = (context.codingPath + [key]).map(\.stringValue).joined(separator: ".")
            return .failure(ProtocolError(id: envelope.id, code: .badRequest, message: "missing field \(snake(path))"))
        } catch DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return .failure(ProtocolError(id: envelope.id, code: .badRequest, message: "field \(snake(path)) has the wrong type"))
        } catch {
            return .failure(ProtocolError(id: envelope.id, code: .badRequest, message: "malformed parameters"))
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
