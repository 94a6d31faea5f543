//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
