//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Foundation
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardTransport
import Synchronization

/// A connection that takes deliveries from the local outbox (on its loop).
protocol OutboxEndpoint: AnyObject {
    /// One item; called on the connection's loop, inside a batch (`EventLoop.executeBatch`).
    func receive(_ item: OutboxItem)
    /// Writes what `receive` queued now instead of at the end of the loop turn (replies: a sender's
    /// acknowledgement does not wait behind the fan-out that the same turn writes).
    func flushNow()
}

extension OutboxEndpoint {
    func flushNow() {}
}
