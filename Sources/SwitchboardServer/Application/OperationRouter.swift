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
/// decoding (`bad_request` naming the field; every string checked, `StringParameterLimits`) and the handler, on the
/// connection's loop. An administrators-only op reads the caller's role first, off the loop (`forbidden`), and
/// decodes after. Handlers hand work off the loop with `RequestContext.run` or to an engine's queue, and reply
/// through the context.
struct OperationRouter: Sendable {
    /// One registered op.
    struct Route: Sendable {
        let traits: OperationTraits
        /// Decodes the parameters and runs the handler; on the connection's loop. `identity` is nil only for
        /// the authentication ops.
        let handle: @Sendable (ProtocolApplication, RequestEnvelope, Identity?) -> Void
    }

    private(set) var routes: [String: Route] = [:]
    /// The byte limits of every op's string parameters (`--max-line-parameter-bytes`, `--max-text-parameter-bytes`).
    let strings: StringParameterLimits

    init(strings: StringParameterLimits = .init()) { self.strings = strings }

    /// Registers `op`'s handler, called on the connection's loop with the decoded parameters. The handler
    /// replies through the context (at once, or after work it starts with `run`). Registering an op twice
    /// is a programming error.
    mutating func register<Op: ProtocolOperation>(
        _ op: Op.Type, _ handler: @escaping @Sendable (RequestContext<Op>, Op.Parameters) -> Void
    ) {
        precondition(routes[Op.name] == nil, "op \(Op.name) registered twice")
        // An administrators-only op is checked before its parameters are decoded, so it is registered with
        // `register(_:work:)`, whose task checks the role first.
        precondition(!Op.administratorsOnly, "op \(Op.name) is for administrators: register it with work:")
        let decode = Op.parameterDecoder(limits: strings)
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
        if Op.administratorsOnly {
            registerForAdministrators(op, work: work)
            return
        }
        register(op) { context, parameters in
            let snapshot = context.snapshot
            context.run { () async throws(ServiceError) -> Op.Result in
                do throws(E) { return try await work(snapshot, parameters) } catch { throw error.wire }
            }
        }
    }

    /// An administrators-only op: the role is read (off the loop, at every request) before the parameters are
    /// decoded, so anyone else gets `forbidden` whatever the parameters; then the parameters (`bad_request`) and
    /// `work`.
    private mutating func registerForAdministrators<Op: ProtocolOperation, E: WireMappable>(
        _ op: Op.Type,
        work: @escaping @Sendable (RequestContext<Op>.Snapshot, Op.Parameters) async throws(E) -> Op.Result
    ) {
        precondition(routes[Op.name] == nil, "op \(Op.name) registered twice")
        let decode = Op.parameterDecoder(limits: strings)
        routes[Op.name] = Route(traits: Op.traits) { app, envelope, identity in
            let context = RequestContext<Op>(connection: app, id: envelope.id, identity: identity)
            let snapshot = context.snapshot
            context.run { () async throws(ServiceError) -> Op.Result in
                do throws(ModerationError) {
                    try await snapshot.services.pool.requireAdministrator(
                        snapshot.userId, otherwise: ModerationError.administratorsOnly)
                } catch {
                    throw error.wire
                }
                let parameters: Op.Parameters
                switch decode(envelope) {
                case .success(let decoded): parameters = decoded
                case .failure(let error): throw ServiceError(error.code, error.message)
                }
                do throws(E) { return try await work(snapshot, parameters) } catch { throw error.wire }
            }
        }
    }

    /// The route of `name`, or nil for an unknown op.
    func route(_ name: String) -> Route? { routes[name] }
}
