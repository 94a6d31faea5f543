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
import Synchronization

/// A call in progress as the coordinator keeps it in the `ClusterStore`, for the node that takes over if it dies.
struct LiveCallSummary: Codable, Sendable, Equatable {
    var callId: String
    var caller: Int64
    var callerDevice: Int64
    var callee: Int64
    /// The callee devices involved: the ringing ones, or the one that accepted.
    var calleeDevices: [Int64]
    var media: String
    /// Wall-clock milliseconds since 1970.
    var startedAt: Int64
    var answeredAt: Int64?
}
