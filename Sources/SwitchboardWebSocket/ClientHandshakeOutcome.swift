//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The client's view of a completed handshake.
public struct ClientHandshakeOutcome: Sendable {
    public var subprotocol: String?
    public var deflate: PerMessageDeflateParameters?
}
