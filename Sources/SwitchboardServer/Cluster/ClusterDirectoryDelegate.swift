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

/// What the directory tells the rest of the node about devices on other nodes (on the directory's queue).
protocol ClusterDirectoryDelegate: AnyObject, Sendable {
    func remoteDeviceAttached(_ device: Device, status: String)
    func remoteDeviceDetached(_ device: Device)
    func remoteDeviceStatus(_ device: Device, status: String)
    /// The end of a run of the calls above (one bus message, one snapshot, one heartbeat's expiries).
    func remoteChangesEnd()
    /// The bus was lost and is back: deliveries to this node's connections may have been missed.
    func busRecovered()
    /// This node was silent longer than its heartbeat TTL (a pause: a stop signal, a stall) and the others may have
    /// expired it and stopped delivering to its devices: deliveries to this node's connections may have been missed.
    func silenceOutlived()
    /// This node has applied `node`'s directory changes up to `seq`: tell that node (`ClusterWire.directoryApplied`).
    func remoteApplied(_ node: UInt32, seq: UInt64)
}
