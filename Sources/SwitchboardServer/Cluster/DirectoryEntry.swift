//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import Dispatch
import Logging
import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol
import Synchronization

/// One device in a node's directory.
struct DirectoryEntry: Sendable, Equatable {
    var connection: UInt64
    var userId: Int64
    var sessionId: Int64
    /// `online` or `away`.
    var status: String
}
