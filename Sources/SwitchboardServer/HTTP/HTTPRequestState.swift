//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardTransport
import SwitchboardWebSocket

/// What an `HTTPSession` tracks of its HTTP requests (not needed once it is a WebSocket).
struct HTTPRequestState: OutOfLineValue {
    /// The request heads' parser (made with the server's limits when the session starts).
    var parser = HTTPHeadParser()
    /// When the wait for the current request head began (the accept for the first request, the head's first byte for
    /// later ones): `handshakeTimeout` counts from here, whatever arrives.
    var headStarted: UInt64 = 0
    /// When the last response was written (keep-alive idle time counts from here).
    var idleSince: UInt64 = 0
    /// When the current request body began (the end of its head).
    var bodyStarted: UInt64 = 0
    /// Bytes of the current request body received so far.
    var bodyReceived = 0
    var servedRequests = 0
    /// The user whose voice upload slot this connection holds, if any.
    var uploadSlotUser: Int64?
}
