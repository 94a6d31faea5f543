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

/// `/echo`: sends every message back (conformance testing and benchmarks).
final class EchoApplication: WebSocketApplication, Sendable {
    static let shared = EchoApplication()
    func session(_ session: HTTPSession, didReceiveText bytes: [UInt8]) { session.send(.text, bytes) }
    func session(_ session: HTTPSession, didReceiveBinary bytes: [UInt8]) { session.send(.binary, bytes) }
    func sessionDidClose(_ session: HTTPSession) {}
}
