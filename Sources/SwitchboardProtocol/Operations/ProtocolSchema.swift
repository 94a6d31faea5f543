//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
