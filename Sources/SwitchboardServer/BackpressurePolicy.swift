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

/// What the server does when a connection's outbound queue passes `maxOutboundBytes`.
public enum BackpressurePolicy: String, Sendable, CaseIterable {
    /// Close with 1008 (policy violation): the client is too slow to be served.
    case close1008 = "close-1008"
    /// Close with 1013 (try again later): the client should reconnect and resume.
    case close1013 = "close-1013"

    /// The WebSocket close code this policy sends.
    public var closeCode: UInt16 {
        switch self {
        case .close1008: return 1008
        case .close1013: return 1013
        }
    }
}
