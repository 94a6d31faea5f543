//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardTransport

/// A loop-confined object that other queues reach through a `LoopBound`: it owns the anchor its handles share
/// and releases it when it closes.
protocol LoopAnchored: AnyObject, SendableMetatype {
    /// The object's anchor (made on first use).
    var loopAnchor: LoopAnchor<Self> { get }
}
