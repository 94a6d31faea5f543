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

/// What waits for an authentication (`ProtocolApplication.authentication`, out of line).
struct AuthenticationHold: OutOfLineValue {
    /// Requests that arrived while authenticating, in order.
    var queued: [(RequestEnvelope, RequestTicket?)] = []
    /// In a cluster, the replies held from an authentication until this device is in the directory sent to the
    /// other nodes (nil when nothing is held); requests meanwhile are queued.
    var replies: [[UInt8]]?
}
