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

/// One authenticated connection (a device) of a user, as a value: engines address it by its connection id.
struct Device: Sendable, Hashable {
    /// The session (token) the connection authenticated with; stays the same across reconnects.
    let sessionId: Int64
    let userId: Int64
    /// Identifies the connection (deliveries go to it through an `Outbox`).
    let connection: ConnectionID
}
