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
        guard bytes.count <= maxRequestBytes else { return .failure(oversize(bytes)) }
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
        guard bytes.count <= maxRequestBytes else { return .failure(oversize(bytes)) }
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
            // Not JSON further on (or a lone surrogate escape): the id is echoed when the frame starts with it.
            return .failure(
                ProtocolError(id: LeadingRequestID.scan(bytes), code: .badRequest, message: "malformed JSON"))
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

    /// `payload_too_large`, with the id when the frame's first bytes show it (`LeadingRequestID`).
    static func oversize(_ bytes: [UInt8]) -> ProtocolError {
        ProtocolError(
            id: LeadingRequestID.scan(bytes), code: .payloadTooLarge,
            message: "request larger than \(maxRequestBytes) bytes")
    }

    /// The decoder of `P` for a router to keep: `ScannableParameters` are read by their scanner when it
    /// answers and by `JSONDecoder` otherwise; other parameters by `JSONDecoder` (`decodeParameters`). Every
    /// string of the parameters, at any depth and on either path, is checked (`StringParameterLimits.problem`,
    /// `bad_request` naming the field): `strings` gives the fields that are not one-line strings.
    public static func parameterDecoder<P: Decodable & Sendable>(
        _ type: P.Type, strings: [String: StringParameter] = [:], limits: StringParameterLimits = .init()
    ) -> @Sendable (RequestEnvelope) -> Result<P, ProtocolError> {
        let check = StringCheck(kinds: strings, limits: limits)
        if let scan = parameterScanner(P.self) {
            return { envelope in
                if let parameters = scan(envelope.json) {
                    do {
                        try check.checkStrings(of: parameters)
                        return .success(parameters)
                    } catch {
                        return .failure(parameterError(error, id: envelope.id))
                    }
                }
                return decodeParameters(P.self, from: envelope, strings: check)
            }
        }
        return { envelope in decodeParameters(P.self, from: envelope, strings: check) }
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

    /// Decodes an op's parameters from the request; a missing or mistyped field is `bad_request` naming it, as is a
    /// string that `strings` refuses.
    static func decodeParameters<P: Decodable>(
        _ type: P.Type, from envelope: RequestEnvelope, strings: StringCheck
    ) -> Result<P, ProtocolError> {
        do {
            let decoder = requestDecoder()
            decoder.userInfo[StringCheck.userInfoKey] = strings
            return .success(try decoder.decode(Checked<P>.self, from: Data(envelope.json)).value)
        } catch DecodingError.dataCorrupted(let context)
            where context.codingPath.isEmpty
            && hasSurrogateEscape(envelope.json)
        {
            // The envelope was read, so JSONDecoder, which reads a string when it is asked for, found this inside
            // one: most likely an escape of a lone surrogate (`\ud800`), which is no character.
            return .failure(
                ProtocolError(
                    id: envelope.id, code: .badRequest,
                    message: "malformed JSON (a string escape that is not a character, such as a lone surrogate)"))
        } catch {
            return .failure(parameterError(error, id: envelope.id))
        }
    }

    /// Whether `json` has an escape of a UTF-16 surrogate (`\uD800`-`\uDFFF`, paired or not).
    static func hasSurrogateEscape(_ json: [UInt8]) -> Bool {
        guard json.count >= 6 else { return false }
        for k in 0..<(json.count - 5) where json[k] == UInt8(ascii: "\\") && json[k + 1] == UInt8(ascii: "u") {
            let high = json[k + 2] | 0x20  // lower case
            let next = json[k + 3] | 0x20
            if high == UInt8(ascii: "d"),
                (UInt8(ascii: "8")...UInt8(ascii: "9")).contains(next)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(next)
            {
                return true
            }
        }
        return false
    }

    /// Decodes an op's parameters from the request, every string held to the default one-line rules.
    public static func decodeParameters<P: Decodable>(_ type: P.Type, from envelope: RequestEnvelope) -> Result<
        P, ProtocolError
    > {
        decodeParameters(P.self, from: envelope, strings: StringCheck(kinds: [:], limits: .init()))
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
