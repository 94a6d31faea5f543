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

/// Events to users and sessions through the outbox, addressed with the registry (for the op handlers).
struct Deliveries: Sendable {
    let registry: SessionRegistry
    let outbox: any Outbox
    /// In a cluster, this node (revocations are announced to every node, each closing its own connections).
    var cluster: ClusterNode? = nil

    /// Sends an encoded event (a JSON text message) to every connected device of these users, except one
    /// connection.
    func send(_ bytes: [UInt8], toUsers users: some Sequence<Int64>, except: ConnectionID? = nil) {
        outbox.post(.event(bytes), to: registry.connections(ofUsers: users).filter { $0 != except })
    }

    /// Sends an encoded event to every connected device of these users.
    func push(_ event: PushEvent) {
        send(event.bytes, toUsers: event.users)
    }

    /// Tells every connection of a session that it was revoked and closes it with 4001.
    func revoke(sessionId: Int64, userId: Int64) {
        guard let cluster else {
            outbox.post(
                .revoke, to: registry.sweep(ofUser: userId).filter { $0.sessionId == sessionId }.map(\.connection))
            return
        }
        revokeLocally(sessionId: sessionId, userId: userId, node: cluster.node)
        cluster.announce(.revoked(sessionId: sessionId, userId: userId))
    }

    /// Tells every connection of a suspended account, on every node, and closes it with 4004.
    func suspend(userId: Int64) {
        guard let cluster else {
            outbox.post(.suspend, to: registry.sweep(ofUser: userId).map(\.connection))
            return
        }
        suspendLocally(userId: userId, node: cluster.node)
        cluster.announce(.suspended(userId: userId))
    }

    /// Closes this node's connections of a suspended account.
    func suspendLocally(userId: Int64, node: UInt32) {
        outbox.post(
            .suspend, to: registry.sweep(ofUser: userId).filter { $0.connection.node == node }.map(\.connection))
    }

    /// Tells every connection of a deleted account (`account.deleted`) and closes it with 4005, on every node.
    func closeDeletedAccount(userId: Int64) {
        guard let cluster else {
            closeDeletedAccountLocally(userId: userId, node: nil)
            return
        }
        closeDeletedAccountLocally(userId: userId, node: cluster.node)
        cluster.announce(.accountDeleted(userId: userId))
    }

    /// This node's connections of a deleted account (`node` nil on a single node: all of them).
    func closeDeletedAccountLocally(userId: Int64, node: UInt32?) {
        let mine = registry.sweep(ofUser: userId).filter { node == nil || $0.connection.node == node }.map(
            \.connection)
        guard !mine.isEmpty else { return }
        let event = ProtocolCodec.encodeEvent(AccountEvents.AccountDeleted(userId: userId))
        var batch = OutboxBatch()
        for connection in mine {
            batch.add(.event(event), to: connection)
            batch.add(.close(code: AccountEvents.closeCode, reason: "account deleted"), to: connection)
        }
        outbox.post(batch)
    }

    /// Closes this node's connections of a session (a revocation announced by another node, or this node's share).
    func revokeLocally(sessionId: Int64, userId: Int64, node: UInt32) {
        let mine = registry.sweep(ofUser: userId).filter { $0.sessionId == sessionId && $0.connection.node == node }
        outbox.post(.revoke, to: mine.map(\.connection))
    }

    /// Why an authenticated connection must close after all: what a sweep it missed would have said.
    enum Closing: Sendable {
        /// Its session was revoked (4001).
        case revoked
        /// Its account was suspended (4004).
        case suspended
        /// Its account was deleted (4005).
        case deleted
    }

    /// Closes one connection as the sweep it missed would have (`IdentityFeature`, "A sweep during an
    /// authentication"); `nil` closes it with 1012 (reconnect and authenticate again) when the check could not be
    /// made.
    func close(_ connection: ConnectionID, userId: Int64, as closing: Closing?) {
        switch closing {
        case .revoked: outbox.post(.revoke, to: [connection])
        case .suspended: outbox.post(.suspend, to: [connection])
        case .deleted:
            var batch = OutboxBatch()
            batch.add(.event(ProtocolCodec.encodeEvent(AccountEvents.AccountDeleted(userId: userId))), to: connection)
            batch.add(.close(code: AccountEvents.closeCode, reason: "account deleted"), to: connection)
            outbox.post(batch)
        case nil: outbox.post(.reconnect, to: [connection])
        }
    }
}
