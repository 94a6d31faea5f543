//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation

extension ProtocolCodec {
    /// Encodes a request of `Op` (for clients and tools): `{"id": id, "op": Op.name, ...parameters}`, keys sorted.
    /// The server decodes it with `decodeEnvelope(_:)` and the op's parameter decoder (`parameterDecoder(_:)`).
    public static func encodeRequest<Op: ProtocolOperation>(
        id: RequestID, _ op: Op.Type, _ parameters: Op.Parameters
    ) -> [UInt8] {
        encode(RequestFrameOut(id: id, op: Op.name, parameters: parameters))
    }

    /// Encodes a typed event: `{"ev": name, ...fields}`.
    public static func encodeEvent(_ event: ServerEvent) -> [UInt8] {
        encode(EventFrameOut(event: event))
    }

    /// Decodes a frame from the server (for clients): a reply, an error reply or an event. Events this
    /// version does not know decode as `ServerEvent.unknown`.
    public static func decodeServerMessage(_ bytes: [UInt8]) -> Result<ServerMessage, ProtocolError> {
        let frame: ServerFrame
        do {
            frame = try requestDecoder().decode(ServerFrame.self, from: Data(bytes))
        } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "malformed JSON"))
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            return .failure(ProtocolError(id: nil, code: .badRequest, message: "a server frame is a JSON object"))
        } catch {
            return .failure(parameterError(error, id: nil))
        }
        switch frame.kind {
        case .event(let event): return .success(.event(event))
        case .error(let id, let error): return .success(.error(id: id, error: error))
        case .reply(let id): return .success(.reply(id: id, result: ReplyResult(frame: bytes)))
        }
    }

    /// A decoder whose key strategy maps the wire's snake_case onto Swift's camelCase.
    static func requestDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return decoder
    }

    /// Maps a parameter decoding failure to `bad_request`, naming the field in snake_case.
    static func parameterError(_ error: any Error, id: RequestID?) -> ProtocolError {
        let message: String
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            message = "missing field \(fieldPath(context.codingPath + [key]))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            message = "field \(fieldPath(context.codingPath)) has the wrong type"
        case DecodingError.dataCorrupted(let context) where !context.codingPath.isEmpty:
            message = "field \(fieldPath(context.codingPath)) is invalid"
        case ParameterRule.violated(let rule):
            message = rule
        case ParameterRule.invalidText(let rule):
            return ProtocolError(id: id, code: .invalidText, message: rule)
        default:
            // The JSON text was already parsed, so what remains is a number that does not fit its field
            // (1.5 or 1e30 for an integer): Foundation reports it without a coding path (as an internal
            // error type when nested, as `dataCorrupted` at the top level).
            message = "a field has an invalid value (integers must be whole and fit in 64 bits)"
        }
        return ProtocolError(id: id, code: .badRequest, message: message)
    }

    /// `phones[3]`, `profile.display_name`.
    static func fieldPath(_ path: [any CodingKey]) -> String {
        var out = ""
        for key in path {
            if let index = key.intValue {
                out += "[\(index)]"
            } else {
                if !out.isEmpty { out += "." }
                out += snake(key.stringValue)
            }
        }
        return out
    }
}

/// A request frame: the parameters' fields, then `id` and `op` in the same object.
private struct RequestFrameOut<Parameters: Encodable>: Encodable {
    var id: RequestID
    var op: String
    var parameters: Parameters

    func encode(to encoder: any Encoder) throws {
        try parameters.encode(to: encoder)
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(id, forKey: AnyKey("id"))
        try container.encode(op, forKey: AnyKey("op"))
    }
}

private struct EventFrameOut: Encodable {
    var event: ServerEvent

    func encode(to encoder: any Encoder) throws {
        try event.encodeFields(to: encoder)
        var container = encoder.container(keyedBy: AnyKey.self)
        try container.encode(event.name, forKey: AnyKey("ev"))
    }
}

// MARK: - Frames from the server (client side)

private struct ServerFrame: Decodable {
    enum Kind {
        case reply(RequestID)
        case error(RequestID?, ReplyError)
        case event(ServerEvent)
    }

    var kind: Kind

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        if container.contains(AnyKey("ev")) {
            let name = try container.decode(String.self, forKey: AnyKey("ev"))
            kind = .event(try ServerEvent.decode(name: name, from: decoder))
            return
        }
        let re = AnyKey("re")
        guard container.contains(re) else { throw ParameterRule.violated("a server frame has re or ev") }
        let id = try container.decodeNil(forKey: re) ? nil : try container.decode(RequestID.self, forKey: re)
        if container.contains(AnyKey("error")) {
            kind = .error(id, try container.decode(ReplyError.self, forKey: AnyKey("error")))
        } else if container.contains(AnyKey("ok")), let id {
            kind = .reply(id)
        } else {
            throw ParameterRule.violated("a reply has ok (with an id) or error")
        }
    }
}
