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

/// Called by a step of the ordered lane once its effect is in the hands of the object's owner; on the
/// connection's loop only (it asserts). A second call, or a call after the connection closed, does nothing.
typealias LaneDone = @Sendable () -> Void

/// The ordered lane of one connection: a FIFO of its state-changing requests (see
/// `ProtocolApplication.ordered(_:)`). Protected by the connection's loop queue.
struct OrderedLane {
    // The Bools are last: they fit in what would be padding (every connection holds this struct).
    /// Numbers the steps: only the running step's `done` moves the lane on.
    var ticket: UInt64 = 0
    /// Steps waiting behind the running one, oldest first from `head`.
    var waiting: [(@escaping LaneDone) -> Void] = []
    var head = 0
    /// The `done` of the step being started, until a `run` in it takes it over (`takeLaneDone`).
    var unclaimed: LaneDone?
    /// A step started and has not called its `done` yet.
    var busy = false
    /// `drain` runs (a step that finishes at once must not start the next one recursively).
    var draining = false

    /// Steps waiting.
    var count: Int { waiting.count - head }
}
