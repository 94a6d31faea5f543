//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

public import SwitchboardDomain
public import SwitchboardStore

/// The administrator role (`users.role`, docs/moderation.md): the one authorization check that moderation and every
/// later feature (communities, events, posts, ...) share. An administrator is a user whose role is `admin` and who
/// is not suspended. The role is read from the database at every check (no cache to invalidate across nodes), so a
/// revocation or a suspension applies at the next request, on every node.
///
/// Inside a transaction a repository calls `AdministratorRole.holds(_:_:)`; a service that needs the check before
/// its own transaction (the `admin.*` ops, `communities.create`) asks the database seam:
/// `try await db.requireAdministrator(userId, otherwise: CommunityError.administratorsOnly)`.
public enum AdministratorRole {
    /// Whether `userId` is an administrator (and not suspended); false for no such user.
    public static func holds(_ db: PostgresConnection, _ userId: Int64) throws -> Bool {
        guard let standing = try ModerationRepository.standing(db, of: userId) else { return false }
        return standing.admin && !standing.suspended
    }
}

extension Database {
    /// Whether `userId` is an administrator (and not suspended), read on one pooled connection. A store failure is
    /// the feature's `E.database`.
    public func isAdministrator<E: FeatureError>(_ userId: Int64, as error: E.Type) async throws(E) -> Bool {
        try await read(as: E.self) { db in try AdministratorRole.holds(db, userId) }
    }

    /// Throws `refusal` (the feature's `forbidden` answer) unless `userId` is an administrator.
    public func requireAdministrator<E: FeatureError>(_ userId: Int64, otherwise refusal: E) async throws(E) {
        guard try await isAdministrator(userId, as: E.self) else { throw refusal }
    }
}
