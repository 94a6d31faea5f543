//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One op of protocol v1, declared once for the server and the client: its name, typed parameters and
/// result, and its traits. Declarations are grouped per feature in `Operations/<Feature>.swift`, each
/// feature listing its ops in an `all` array that `ProtocolSchema.operations` joins.
///
/// The server's router registers a handler per op (`OperationRouter.register`); the client sends one
/// with `SwitchboardClient.send(_:_:)`. Keys are camelCase here and snake_case on the wire.
public protocol ProtocolOperation: Sendable {
    /// The request's fields besides `id` and `op` (`Empty` when there are none).
    associatedtype Parameters: Codable & Sendable
    /// The reply's `ok` object.
    associatedtype Result: Codable & Sendable
    /// The op name on the wire (`messages.send`).
    static var name: String { get }
    /// Whether the op needs an authenticated connection, or is one of the ops that authenticate it.
    static var authentication: AuthenticationRule { get }
    /// Whether the op changes state: state-changing ops take effect in the order a connection sent them
    /// (the ordered lane, `docs/protocol.md`, Envelopes); read-only ops start at once.
    static var stateChanging: Bool { get }
    /// Whether resending the request after a lost reply is safe (a read, or a write the server makes
    /// idempotent). `messages.send` is resendable only with a `client_id`, which the client decides.
    static var idempotent: Bool { get }
    /// The rate limit that applies beyond the per-connection limits.
    static var rateLimit: RateLimitClass { get }
    /// Whether only administrators may send the op: the server checks the role before it decodes the
    /// parameters, so anyone else gets `forbidden` whatever they sent (the `admin.*` ops).
    static var administratorsOnly: Bool { get }
    /// The string parameters that are not one-line strings (`.line`), by snake_case field name (an array's
    /// elements under the array's name): free text (`.text`) and passwords (`.secret`). Every string of the
    /// parameters is checked while they are decoded (`docs/protocol.md`, "Stored strings").
    static var stringParameters: [String: StringParameter] { get }
}

extension ProtocolOperation {
    public static var authentication: AuthenticationRule { .required }
    public static var rateLimit: RateLimitClass { .none }
    public static var administratorsOnly: Bool { false }
    public static var stringParameters: [String: StringParameter] { [:] }
    /// The traits as a value.
    public static var traits: OperationTraits {
        OperationTraits(
            name: name, authentication: authentication, stateChanging: stateChanging, idempotent: idempotent,
            rateLimit: rateLimit, administratorsOnly: administratorsOnly)
    }

    /// The decoder of this op's parameters, every string checked under `limits` (the router's).
    public static func parameterDecoder(
        limits: StringParameterLimits = .init()
    ) -> @Sendable (RequestEnvelope) -> Swift.Result<Parameters, ProtocolError> {
        ProtocolCodec.parameterDecoder(Parameters.self, strings: stringParameters, limits: limits)
    }
}
