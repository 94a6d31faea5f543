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

/// Where engines (messaging, calls, presence) hand their deliveries: local loops today, the cluster's bus
/// tomorrow. Thread-safe; `post` may be called on any queue and returns at once.
protocol Outbox: Sendable {
    /// Hands the batch over; each connection's items arrive in the batch's order (replies first). Items for a
    /// connection that is gone are dropped.
    func post(_ batch: OutboxBatch)
}

extension Outbox {
    /// One item for some connections.
    func post(_ item: OutboxItem, to connections: some Sequence<ConnectionID>) {
        var batch = OutboxBatch()
        batch.add(item, to: connections)
        if !batch.isEmpty { post(batch) }
    }

    /// The answer to a connection's request.
    func reply(_ reply: EngineReply, to connection: ConnectionID) {
        post(.reply(reply), to: [connection])
    }
}
