//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport
import SwitchboardWebSocket

/// One decoded request, from its decoding until it is answered or handed to its owner (admission control and
/// per-op metrics): its op and when it was decoded (`EventLoop.now()`).
struct RequestTicket: Sendable {
    let op: String
    let startedAt: UInt64
}
