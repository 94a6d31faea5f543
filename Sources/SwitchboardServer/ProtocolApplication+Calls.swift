//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardProtocol

extension ProtocolApplication {
    /// The `call.*` ops (routed here by `handle`).
    static let callOps: Set<String> = []

    /// Handles one `call.*` request of an authenticated connection. Runs on the connection's loop.
    func handleCall(_ envelope: RequestEnvelope, identity: Identity) {
        session.send(.text, ProtocolCodec.encodeError(id: envelope.id, code: .unknownOp, message: "unknown op \(envelope.op.prefix(64))"))
    }

    /// This connection authenticated (on its loop).
    func callConnectionOpened(_ identity: Identity) {}

    /// This authenticated connection closed (on its loop).
    func callConnectionClosed(_ identity: Identity) {}
}
