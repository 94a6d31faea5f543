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

/// A connection, unique in the process for its lifetime (never reused). Engines address connections by it,
/// never by the connection's object, so that a delivery can be handed to a local loop or (later) to a bus.
struct ConnectionID: Hashable, Sendable, CustomStringConvertible {
    /// The node (high `nodeBits`) and a number unique in the node's process (the rest). One node (no cluster) is
    /// node 0.
    let rawValue: UInt64

    /// Bits of the node number.
    static let nodeBits: UInt64 = 24
    static let localBits: UInt64 = 64 - nodeBits

    private static let counter = Atomic<UInt64>(0)

    init(rawValue: UInt64) { self.rawValue = rawValue }

    /// A new identifier of a connection of `node`, never handed out before in this process.
    static func next(node: UInt32 = 0) -> ConnectionID {
        let local = counter.add(1, ordering: .relaxed).newValue & ((1 << localBits) - 1)
        return ConnectionID(rawValue: UInt64(node) << localBits | local)
    }

    /// The node the connection is on.
    var node: UInt32 { UInt32(truncatingIfNeeded: rawValue >> Self.localBits) }

    var description: String { node == 0 ? "c\(rawValue)" : "c\(node).\(rawValue & ((1 << Self.localBits) - 1))" }

    /// Hashed like an `IDKey` (the server numbers connections; SipHash here was a third of a delivery's hashing).
    func _rawHashValue(seed: Int) -> Int { Int(bitPattern: UInt(IDKey.mix(rawValue, seed: seed))) }
}
