//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
