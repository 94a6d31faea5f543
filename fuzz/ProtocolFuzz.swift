//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

// libFuzzer target: protocol v1 decoding of client requests (envelope, typed request, an op's parameters
// with nested and optional fields such as messages.send and sync) and of server messages (client side); and
// the envelope scanner and the messages.send parameter scanner against JSONDecoder (differential); the
// cluster's bus messages (ClusterWire).

import Foundation

struct FuzzSendParams: Decodable {
    var conversationId: Int64?
    var userId: Int64?
    var clientId: String?
    var text: String?
    var voiceId: Int64?
}

struct FuzzSyncParams: Decodable { var since: [String: Int64]? }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzProtocol(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Differential: whenever the scanner reads an envelope, JSONDecoder reads the same id and op (the scanner
    // may only decline, never disagree).
    if let (id, op) = EnvelopeScanner.scan(bytes), bytes.count <= ProtocolCodec.maxRequestBytes {
        guard case .success(let exact) = ProtocolCodec.decodeEnvelopeExactly(bytes) else {
            preconditionFailure("the scanner accepted what JSONDecoder refuses")
        }
        precondition(
            exact.id == id && exact.op == op, "the scanner read \(id)/\(op), JSONDecoder \(exact.id)/\(exact.op)")
    }
    // Differential: whenever the messages.send scanner answers, JSONDecoder reads the same parameters.
    if let scanned = Ops.MessagesSend.Parameters.scanned(from: bytes) {
        guard
            let exact = try? ProtocolCodec.requestDecoder().decode(Ops.MessagesSend.Parameters.self, from: Data(bytes))
        else { preconditionFailure("the send scanner accepted what JSONDecoder refuses") }
        precondition(
            Array((exact.text ?? "").utf8) == Array((scanned.text ?? "").utf8)
                && (exact.text == nil) == (scanned.text == nil)
                && Array((exact.clientId ?? "").utf8) == Array((scanned.clientId ?? "").utf8)
                && (exact.clientId == nil) == (scanned.clientId == nil)
                && exact.conversationId == scanned.conversationId
                && exact.userId == scanned.userId && exact.voiceId == scanned.voiceId,
            "the send scanner read \(scanned), JSONDecoder \(exact)")
    }
    // The cluster's bus messages: a decoded message encodes back to the same bytes.
    if let wire = ClusterWire.decode(bytes) {
        precondition(wire.encoded() == bytes, "a cluster message does not encode back to its bytes")
    }
    switch ProtocolCodec.decodeEnvelope(bytes) {
    case .success(let envelope):
        _ = ProtocolCodec.decodeParameters(FuzzSendParams.self, from: envelope)
        _ = ProtocolCodec.decodeParameters(FuzzSyncParams.self, from: envelope)
        // The op's declared parameters, as the server's router decodes them.
        if let op = ProtocolSchema.operation(named: envelope.op) { _ = op.fuzzedParameters(envelope) }
    case .failure(let error):
        precondition([.badRequest, .unknownOp, .payloadTooLarge].contains(error.code))
    }
    _ = ProtocolCodec.decodeServerMessage(bytes)
    return 0
}

extension ProtocolOperation {
    /// Decodes this op's parameters from `envelope` with the router's decoder (the scanner, then `JSONDecoder`).
    static func fuzzedParameters(_ envelope: RequestEnvelope) -> Bool {
        if case .success = parameterDecoder()(envelope) { return true }
        return false
    }
}
