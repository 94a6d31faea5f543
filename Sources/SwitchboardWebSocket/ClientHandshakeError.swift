//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Why the server's upgrade response was refused by the client.
public enum ClientHandshakeError: Error, Equatable, Sendable {
    case status(Int)
    case missingUpgrade
    case badAccept
    case unexpectedSubprotocol(String)
    case unexpectedExtension(String)
}
