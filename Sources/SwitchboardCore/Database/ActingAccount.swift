//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

import SwitchboardDomain
public import SwitchboardStore

/// The account a request acts for (issue 37, races): every write transaction made while it is set
/// (`Database.write` through the pool) first locks that account's `users` row `FOR KEY SHARE` and refuses with
/// `DatabaseError.accountDeleted` when the account is deleted.
///
/// Account deletion's first transaction holds the row `FOR UPDATE` while it marks the account deleted
/// (`AccountDeletionRepository.request`), which conflicts with this lock: a write that locked first commits before
/// the deletion can, so the deletion's steps (run after it) see what it created; one that comes later waits, then
/// finds the account deleted (read committed re-reads the row it waited for) and changes nothing. So nothing of a
/// deleted account is created after its deletion's steps ran (moments, likes, reactions, groups, communities,
/// events, follows, profiles...). The message writer and posts take the same lock in their own statements
/// (`MessageStore.lockHeads`, `SocialGraphRepository.lockHandle`).
///
/// Set by the protocol's request runner for an authenticated connection's requests (`ProtocolApplication.run`) and
/// by the HTTP router for a bearer-authenticated route; background jobs (deletion, retention, backups) run without.
public enum ActingAccount {
    /// The current task's acting account (nil: none).
    @TaskLocal public static var userId: Int64?

    /// Locks `userId`'s row `FOR KEY SHARE` until the transaction ends.
    /// - Throws: `DatabaseError.accountDeleted` when the account is deleted (or gone).
    public static func lock(_ db: PostgresConnection, _ userId: Int64) throws {
        guard
            !(try db.execute(
                cached: "SELECT 1 FROM users WHERE id = $1 AND deleted_at IS NULL FOR KEY SHARE", [.int(userId)]
            ).isEmpty)
        else { throw DatabaseError.accountDeleted }
    }
}
