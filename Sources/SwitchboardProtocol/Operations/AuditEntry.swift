//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// One line of the moderation audit log.
public struct AuditEntry: Codable, Sendable, Equatable {
    public var entryId: Int64
    /// The administrator's user id (absent for the operator's command line, or a deleted account).
    public var actorId: Int64?
    /// Who acted, as shown: `user:<id>` or `cli`.
    public var actor: String
    /// `grant`, `revoke`, `remove`, `suspend`, `reinstate`, `resolve`, `dismiss`.
    public var action: String
    /// `user`, `message` or `report`.
    public var targetKind: String
    public var targetId: Int64?
    public var reason: String?
    public var createdAt: String
    public init(
        entryId: Int64, actorId: Int64?, actor: String, action: String, targetKind: String, targetId: Int64?,
        reason: String?, createdAt: String
    ) {
        self.entryId = entryId
        self.actorId = actorId
        self.actor = actor
        self.action = action
        self.targetKind = targetKind
        self.targetId = targetId
        self.reason = reason
        self.createdAt = createdAt
    }
}
