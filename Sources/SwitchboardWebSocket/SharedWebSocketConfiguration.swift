//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One configuration that many connections share: a connection made with it holds one reference (8 bytes) instead
/// of its own copy of the fields (a server makes one for all its connections).
public final class SharedWebSocketConfiguration: Sendable {
    public let value: WebSocketConfiguration

    public init(_ value: WebSocketConfiguration) { self.value = value }
}
