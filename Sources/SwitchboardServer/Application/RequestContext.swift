//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardCore
import SwitchboardDomain
import SwitchboardProtocol

/// A request being handled: its id, connection and identity. Used on the connection's loop only.
struct RequestContext<Op: ProtocolOperation> {
    let connection: ProtocolApplication
    let id: RequestID
    /// Nil only for the authentication ops (the router checks `Op.authentication`).
    let identity: Identity?

    /// What off-loop work may use: the request's identity and the services.
    struct Snapshot: Sendable {
        let services: ProtocolServices
        /// The user (0 for the authentication ops, which have none yet).
        let userId: Int64
        let sessionId: Int64
        /// The client's address without port.
        let address: String
        /// The nodes that share the user's rate limits (1 on a single node; looked up when a limit needs it).
        var limitShare: Int { services.cluster == nil ? 1 : services.registry.nodeCount(ofUser: userId) }

        /// The request's user as a service sees it.
        var caller: Caller { Caller(userId: userId, sessionId: sessionId, address: address, limitShare: limitShare) }

        /// Delivers a service's events (after its commit): each encoded once, to every connected device of its
        /// users, on every node.
        func deliver(_ events: [DomainEvent]) {
            for event in events { services.deliveries.send(event.encoded(), toUsers: event.users) }
        }
    }

    var snapshot: Snapshot {
        Snapshot(
            services: connection.services, userId: identity?.userId ?? 0, sessionId: identity?.sessionId ?? 0,
            address: connection.clientAddress)
    }

    var services: ProtocolServices { connection.services }

    /// The authenticated user (the router calls authenticated handlers only with an identity).
    var user: Identity {
        guard let identity else { preconditionFailure("\(Op.name) handled without an identity") }
        return identity
    }

    /// The authenticated user's id.
    var me: Int64 { user.userId }

    /// The nodes that share the user's rate limits: those where it has devices (1 on a single node).
    var limitShare: Int { connection.services.cluster == nil ? 1 : connection.services.registry.nodeCount(ofUser: me) }

    /// The op's name (engines name it in their answers, for the per-op metrics).
    var op: String { Op.name }

    /// This connection as a device of its user (nil before authentication).
    var device: Device? { connection.device }

    /// Answers with `result`.
    func reply(_ result: Op.Result) {
        connection.port.sendText(ProtocolCodec.encodeReply(id: id, result: result))
    }

    /// Answers with `ok`, the result already encoded as JSON (hand-written on the hot paths).
    func replyEncoded(_ ok: [UInt8]) {
        connection.port.sendText(OperationReplies.raw(id, ok))
    }

    /// Answers with an error (counted per op; `internal` logged with its cause).
    func fail(_ code: ErrorCode, _ message: String, extra: [String: Int64] = [:]) {
        connection.sendError(id, op: Op.name, code, message, extra: extra)
    }

    /// Answers with a service's error.
    func fail(_ error: ServiceError) {
        connection.sendError(id, op: Op.name, error)
    }

    /// Runs `work` off the loop and answers with its result (or its error); `then` runs on the loop first.
    func run(
        _ work: @escaping @Sendable () async throws(ServiceError) -> Op.Result,
        then: (@Sendable (ProtocolApplication, Op.Result) -> Void)? = nil
    ) {
        connection.run(id, work, then: then)
    }

    /// Runs `work` off the loop; on success `replyWith` runs on the loop and is responsible for the reply (for
    /// work that hands its effect on, e.g. to a conversation's writer), on failure the error is the reply.
    func run<R: Sendable>(
        _ work: @escaping @Sendable () async throws(ServiceError) -> R,
        replyWith: @escaping @Sendable (ProtocolApplication, R) -> Void
    ) {
        connection.run(id, work, replyWith: replyWith)
    }
}
