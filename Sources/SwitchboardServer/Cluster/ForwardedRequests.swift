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
import Synchronization

/// The requests of this node's connections that were forwarded to another node and not answered yet: the answer
/// and the origin's `unavailable` after its timeout race, and whichever `complete`s first is sent. Thread-safe.
final class ForwardedRequests: Sendable {
    private struct Key: Hashable {
        let connection: ConnectionID
        let id: RequestID
    }
    // Waiting requests per connection and id (a client may reuse an id while one waits).
    private let waiting = Mutex<[Key: Int]>([:])

    func add(_ connection: ConnectionID, _ id: RequestID) {
        waiting.withLock { $0[Key(connection: connection, id: id), default: 0] += 1 }
    }

    /// Whether a request with this id of this connection was waiting (it no longer is).
    func complete(_ connection: ConnectionID, _ id: RequestID) -> Bool {
        waiting.withLock { w in
            let key = Key(connection: connection, id: id)
            guard let n = w[key] else { return false }
            w[key] = n > 1 ? n - 1 : nil
            return true
        }
    }

    var count: Int { waiting.withLock { $0.values.reduce(0, +) } }
}
