//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// Which end of the connection we are: servers receive masked frames and send unmasked ones.
public enum WebSocketRole: Sendable {
    case server
    case client
}
