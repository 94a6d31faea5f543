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

/// One item for one connection.
enum OutboxItem: Sendable {
    /// The answer to a request of this connection. Boxed (`indirect`): an `EngineReply` is large, and an item is
    /// copied once per recipient of a fan-out, so the enum stays small.
    indirect case reply(EngineReply)
    /// A stored message (the connection applies its delivery state: `SentSeqs`, holding during a resume).
    case message(OutboundMessage)
    /// Stored messages of one commit, in order, each as `.message` would deliver it (`DeliveryPlan` makes one
    /// item per device for a run of messages to the same devices).
    case messages([OutboundMessage])
    /// A presence or typing event, conflated per `source` while the connection is backed up.
    case ephemeral([UInt8], source: String)
    /// An event (a JSON text message).
    case event([UInt8])
    /// A live page event (`SocialLive`): never crosses the bus as an item (each node routes social changes itself).
    case social(SocialDelivery)
    /// The connection's session was revoked: tell it and close it (4001).
    case revoke
    /// The connection's account was suspended: tell it and close it (4004).
    case suspend
    /// Close the connection with this code (after the items before it, e.g. an event saying why).
    case close(code: UInt16, reason: String)
    /// Deliveries to the connection may have been lost (the cluster's bus was interrupted): close it with 1012
    /// so that the client reconnects and resumes (`docs/cluster.md`).
    case reconnect
}
