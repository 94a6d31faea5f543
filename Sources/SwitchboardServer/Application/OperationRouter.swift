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

/// Finds an op's handler by name; built once at start-up (then read-only, shared by every loop).
///
/// The path of a request (`ProtocolApplication.dispatch`): look-up by name (`unknown_op`), the op's
/// authentication rule (`not_authenticated`, `already_authenticated`), the ordered lane for
/// state-changing ops (`rate_limited` beyond `--max-waiting-requests`), then `Route.handle`: parameter
/// decoding (`bad_request` naming the field) and the handler, on the connection's loop. Handlers hand work
/// off the loop with `RequestContext.run` or to an engine's queue, and reply through the context.
struct OperationRouter: Sendable {
    /// One registered op.
    struct Route: Sendable {
        let traits: OperationTraits
        /// Decodes the parameters and runs the handler; on the connection's loop. `identity` is nil only for
        /// the authentication ops.
        let handle: @Sendable (ProtocolApplication, RequestEnvelope, Identity?) -> Void
    }

    private(set) var routes: [String: Route] = [:]

    init() {}

    /// Registers `op`'s handler, called on the connection's loop with the decoded parameters. The handler
    /// replies through the context (at once, or after work it starts with `run`). Registering an op twice
    /// is a programming error.
    mutating func register<Op: ProtocolOperation>(
        _ op: Op.Type, _ handler: @escaping @Sendable (RequestContext<Op>, Op.Parameters) -> Void
    ) {
        precondition(routes[Op.name] == nil, "op \(Op.name) registered twice")
        let decode = ProtocolCodec.parameterDecoder(Op.Parameters.self)
        routes[Op.name] = Route(traits: Op.traits) { app, envelope, identity in
            let context = RequestContext<Op>(connection: app, id: envelope.id, identity: identity)
            switch decode(envelope) {
            case .success(let parameters): handler(context, parameters)
            case .failure(let error): context.fail(error.code, error.message)
            }
        }
    }

    /// Registers a handler that runs off the loop and whose result is the reply (the common case). The handler's
    /// typed error (a feature's `FeatureError`, or `ServiceError`) is the reply when it throws, mapped to the wire
    /// by its `wire` property.
    mutating func register<Op: ProtocolOperation, E: WireMappable>(
        _ op: Op.Type,
        work: @escaping @Sendable (RequestContext<Op>.Snapshot, Op.Parameters) async throws(E) -> Op.Result
    ) {
        register(op) { context, parameters in
            let snapshot = context.snapshot
            context.run { () async throws(ServiceError) -> Op.Result in
                do throws(E) { return try await work(snapshot, parameters) } catch { throw error.wire }
            }
        }
    }

    /// The route of `name`, or nil for an unknown op.
    func route(_ name: String) -> Route? { routes[name] }
}

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

/// Hand-written replies.
enum OperationReplies {
    /// `{"ok":<ok>,"re":id}` with `ok` already JSON.
    static func raw(_ id: RequestID, _ ok: [UInt8]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.key("ok")
        w.raw(ok)
        w.key("re")
        switch id {
        case .int(let i): w.int(i)
        case .string(let s): w.string(s)
        }
        w.endObject()
        return w.bytes
    }
}
