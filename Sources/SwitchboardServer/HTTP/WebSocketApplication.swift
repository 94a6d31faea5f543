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

/// What a WebSocket endpoint does with messages. Called on the connection's loop queue.
protocol WebSocketApplication: AnyObject {
    func session(_ session: HTTPSession, didReceiveText bytes: [UInt8])
    func session(_ session: HTTPSession, didReceiveBinary bytes: [UInt8])
    func sessionDidClose(_ session: HTTPSession)
    /// Once per sweep while the WebSocket is open.
    func session(_ session: HTTPSession, sweepAt now: UInt64)
    /// The outbound queue drained after having backed up.
    func sessionDidDrain(_ session: HTTPSession)
}

extension WebSocketApplication {
    func session(_ session: HTTPSession, sweepAt now: UInt64) {}
    func sessionDidDrain(_ session: HTTPSession) {}
}
