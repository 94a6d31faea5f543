//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

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
