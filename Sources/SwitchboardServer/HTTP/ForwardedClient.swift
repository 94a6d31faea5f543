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

/// The client a trusted proxy forwarded for (`HTTPSession.clientAddress`).
final class ForwardedClient {
    let address: String
    init(address: String) { self.address = address }
}
