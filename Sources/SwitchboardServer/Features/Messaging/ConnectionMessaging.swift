//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain

/// Per-connection messaging state; protected by the connection's loop queue (owned by `ProtocolApplication`).
struct ConnectionMessaging {
    var held: [OutboundMessage] = []
    /// What was sent on this connection, per conversation (one dictionary, so a live delivery costs one lookup).
    var seqs: [IDKey: ConversationSeqs] = [:]
    /// Presence and typing events waiting for the connection to drain, latest per source.
    var conflated: [String: [UInt8]] = [:]
    var conflatedOrder: [String] = []
    /// Work waiting for the outbound queue to drain (catch-up pacing).
    var drainWaiters: [@Sendable (Bool) -> Void] = []
    // The Bools are last: they fit in what would be padding (every connection holds this struct).
    /// Live message events are held: a `sync` runs, or the client authenticated with `resume` and its `sync`
    /// is still to come.
    var holding = false
    /// A `sync` runs.
    var syncing = false
}
