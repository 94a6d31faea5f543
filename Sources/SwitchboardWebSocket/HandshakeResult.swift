//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The server's decision on an upgrade request.
public enum HandshakeResult: Sendable {
    /// Send `response` (101) and switch to WebSocket framing.
    case accept(response: [UInt8], subprotocol: String?, deflate: PerMessageDeflateParameters?)
    /// Answer with `status` and these extra headers, then keep or close the HTTP connection.
    case reject(status: Int, headers: [(String, String)], reason: HandshakeFailureReason)
}
