//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The traits of an op, without its types.
public struct OperationTraits: Sendable, Equatable {
    public var name: String
    public var authentication: AuthenticationRule
    public var stateChanging: Bool
    public var idempotent: Bool
    public var rateLimit: RateLimitClass
    /// `ProtocolOperation.administratorsOnly`.
    public var administratorsOnly: Bool = false
}
