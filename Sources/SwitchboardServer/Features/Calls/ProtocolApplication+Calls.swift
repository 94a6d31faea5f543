//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Foundation
import SwitchboardCalls
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import SwitchboardStore
import SwitchboardTransport

extension ProtocolApplication {
    /// This connection authenticated (on its loop).
    func callConnectionOpened(_ identity: Identity) {
        if let device { services.calls.connectionOpened(device) }
    }

    /// This authenticated connection closed (on its loop; already removed from the session registry).
    func callConnectionClosed(_ identity: Identity) {
        if let device { services.calls.connectionClosed(device) }
    }
}
