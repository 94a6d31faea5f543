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

/// A result and its reply, encoded off the loop.
struct EncodedReply<R: Sendable>: Sendable {
    let value: R
    let bytes: [UInt8]
}
