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
}

extension ProtocolOperation {
    public static var authentication: AuthenticationRule { .required }
    public static var rateLimit: RateLimitClass { .none }
    /// The traits as a value.
    public static var traits: OperationTraits {
        OperationTraits(
            name: name, authentication: authentication, stateChanging: stateChanging, idempotent: idempotent,
            rateLimit: rateLimit)
    }
}

/// Who may send an op.
public enum AuthenticationRule: String, Sendable, Equatable {
    /// Only an authenticated connection (`not_authenticated` before).
    case required
    /// Only before authentication: `register`, `login`, `authenticate` (`already_authenticated` after).
    case authenticates
}

/// The rate limit class of an op (`docs/protocol.md`, Limits).
public enum RateLimitClass: String, Sendable, Equatable {
    /// Only the per-connection limits (the ordered lane's cap, frames per second).
    case none
    /// Registrations per address.
    case registration
    /// Failed logins per phone and per address.
    case login
    /// Contact look-ups per account and address.
    case discovery
    /// Messages sent per user.
    case messages
    /// Typing updates per user.
    case typing
    /// TURN credentials per user.
    case turn
    /// Reactions set per user.
    case reactions
    /// Reports made per user (`report.create`).
    case reports
    /// Posts, replies per user (`post.create`).
    case posts
    /// Likes and unlikes per user.
    case likes
    /// Reposts and unreposts per user.
    case reposts
}

/// The traits of an op, without its types.
public struct OperationTraits: Sendable, Equatable {
    public var name: String
    public var authentication: AuthenticationRule
    public var stateChanging: Bool
    public var idempotent: Bool
    public var rateLimit: RateLimitClass
}

/// The namespace of the op declarations: `Ops.MessagesSend`, `Ops.Register`, ...
public enum Ops {}

/// Every op of protocol v1.
public enum ProtocolSchema {
    /// The op types, feature by feature.
    public static let operations: [any ProtocolOperation.Type] =
        Ops.accounts + Ops.friends + Ops.messaging + Ops.presence + Ops.reactions + Ops.calls + Ops.moderation
        + Ops.account
        + Ops.activeHours
        + Ops.communities + Ops.events
        + Ops.courses
        + Ops.socialPosts
        + Ops.socialLive
        + Ops.socialGraph
        + Ops.photos + Ops.moments

    /// The op types by name.
    public static let operationsByName: [String: any ProtocolOperation.Type] = Dictionary(
        uniqueKeysWithValues: operations.map { ($0.name, $0) })

    /// The op named `name`, or nil for an unknown op.
    public static func operation(named name: String) -> (any ProtocolOperation.Type)? { operationsByName[name] }

    /// Traits by op name.
    public static let traitsByName: [String: OperationTraits] = Dictionary(
        uniqueKeysWithValues: operations.map { ($0.name, $0.traits) })

    /// The traits of the op named `name`, or nil for an unknown op.
    public static func traits(named name: String) -> OperationTraits? { traitsByName[name] }
}
